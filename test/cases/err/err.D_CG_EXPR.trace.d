/* trace() records a value; it does not have one */
BEGIN { x = trace(1); }
