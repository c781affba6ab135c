/*
 * stddev()'s sum of squares is 128 bits: 4e9 squared twice overflows its
 * low word once, and the carry must reach the high word exactly once
 * (each word is added atomically; the carry comes from the low word's
 * value just before the add). sqrt(32e18/3 - (8e9/3)^2) = 1885618084.
 */
/* @@opts: -q */
BEGIN
{
	@ = stddev(4000000000);
	@ = stddev(4000000000);
	@ = stddev(0);
	printa("%@d\n", @);
	exit(0);
}
