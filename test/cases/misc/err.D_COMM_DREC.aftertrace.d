/* commit() may not follow a data-recording action in its clause */
BEGIN
{
	trace(timestamp);
	commit(1);
}
