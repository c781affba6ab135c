/* $target is in DTrace's macro table from the start: 0 until -c or -p names a process. */
/* @@opts: -q */
BEGIN
{
	printf("%d %d\n", $target, pid == $target);
	exit(0);
}
