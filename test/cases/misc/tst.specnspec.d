/* @@opts: -q */
/* @@stderr: 1 failed speculation (no speculative buffer available) */
/* nspec is 1 by default (the guide's "Speculation Options and
   Tuning"): while the first speculation is active, speculation() returns
   0, and the failure is counted and reported; an ID of 0 may be passed
   to speculate() and commit(), and names no buffer. */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
}

BEGIN
{
	speculate(a);
	printf("kept in a\n");
}

BEGIN
{
	commit(a);
}

/* one commit() per clause (D_COMM_COMM), and no exit() after it */
BEGIN
{
	commit(b);
}

BEGIN
{
	exit(0);
}
