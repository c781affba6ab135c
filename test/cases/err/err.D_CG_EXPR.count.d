/* @@stderr: aggregating function count( ) may not be called from a D expression */
/* an aggregating function is only the right-hand side of an aggregation */
BEGIN { x = count(); }
