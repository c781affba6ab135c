/* @@stderr: printa( ) argument #2 is incompatible with conversion #1 prototype */
/* the key is a string: %d cannot print it */
BEGIN { @calls[execname] = count(); }
END { printa("%d %@d\n", @calls); }
