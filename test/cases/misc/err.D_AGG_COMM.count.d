/* aggregations may not follow commit() */
BEGIN
{
	commit(1);
	@n = count();
}
