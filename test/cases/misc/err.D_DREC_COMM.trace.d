/* nor may data be recorded after commit() in the same clause */
BEGIN
{
	commit(1);
	trace(timestamp);
}
