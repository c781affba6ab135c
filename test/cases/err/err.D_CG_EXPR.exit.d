/* @@stderr: tracing function exit( ) may not be called from a D expression */
/* actions have no value: they are statements of a clause, never part of
   an expression */
BEGIN { x = exit(0); }
