/* @@stderr: expression contains division by zero */
BEGIN { x = 7; x %= 0; }
