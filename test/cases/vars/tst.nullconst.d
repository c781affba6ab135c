/* NULL is DTrace's hard-wired "inline long NULL = 0": zero, eight bytes wide, and a pointer compares with it. */
/* @@opts: -q */
BEGIN
{
	p = (void *)0;
	printf("%d %d %d %d\n", NULL, sizeof (NULL), p == NULL, curthread != NULL);
	exit(0);
}
