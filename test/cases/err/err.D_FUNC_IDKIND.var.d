/* @@stderr: scalar 'timestamp' may not be referenced as a function */
/* timestamp is a variable, not a function */
BEGIN { x = timestamp(); }
