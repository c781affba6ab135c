/* @@stderr: @a must be assigned the result of an aggregating function */
BEGIN { @a = trace(1); }
