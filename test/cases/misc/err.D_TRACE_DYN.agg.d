/* @@stderr: trace( ) may not be applied to a dynamic expression */
/* trace() records a value: an aggregation is printed by printa() */
BEGIN { @calls = count(); }
END { trace(@calls); }
