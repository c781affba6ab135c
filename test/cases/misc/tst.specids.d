/* @@opts: -q -x nspec=4 */
/* speculation() hands out IDs from 1, a new one each call while the
   others are in use (the guide's "Speculative Tracing": "the speculation
   ... identifier ... zero ... no speculative buffer"); each speculative
   buffer holds its own data until commit() or discard(). */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d %d\n", a, b, a != b);
}

BEGIN
{
	speculate(a);
	printf("in a\n");
}

BEGIN
{
	speculate(b);
	printf("in b\n");
}

BEGIN
{
	discard(a);
	commit(b);
}

/* exit() may not follow commit() in one clause (D_DREC_COMM) */
BEGIN
{
	exit(0);
}
