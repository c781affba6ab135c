/* an aggregation has no value to use in an expression */
BEGIN { @a = count(); }
END { x = (1, @a); }
