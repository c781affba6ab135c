/* @@stderr: printa( ) prototype mismatch: 0 args passed, at least 1 expected */
BEGIN { printa(); }
