/* an aggregation records data too: speculate() may not follow it */
BEGIN
{
	@calls = count();
	speculate(speculation());
}
