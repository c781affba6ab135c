/* @@stderr: void expression may not be used as aggregation index: key #2 */
/* an aggregation key must have a value */
BEGIN { @a[1, (void)0] = count(); }
