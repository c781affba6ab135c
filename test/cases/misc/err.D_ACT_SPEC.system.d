/* @@opts: -w */
/* destructive actions may not follow speculate() */
BEGIN
{
	speculate(1);
	system("true");
}
