/* aggregations are never speculative: they may not follow speculate() */
BEGIN
{
	speculate(1);
	@total = sum(10);
}
