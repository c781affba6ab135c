/* @@opts: -q -x specsize=100 */
/* @@stderr: 8 speculative drops */
/* specsize bounds what a speculative buffer keeps (the guide's
   "Speculation Options and Tuning"): the records past it are dropped and
   counted as speculative drops; what was kept is still committed. */
BEGIN
{
	a = speculation();
}

tick-1ms
/n < 10/
{
	speculate(a);
	printf("%d\n", n++);
}

tick-1ms
/n == 10/
{
	commit(a);
}

/* exit() may not follow commit() in one clause (D_DREC_COMM) */
tick-1ms
/n == 10/
{
	exit(0);
}
