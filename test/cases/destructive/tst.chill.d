/* @@opts: -w -q */
/* chill(ns) spins the CPU for ns nanoseconds (destructive, -w); a
   negative or zero time spins not at all. (timestamp is the same all
   through a firing, as in DTrace, so the time spent is not measured
   here.) */
BEGIN
{
	chill(2000000);
	chill(-5);
	chill(0);
	printf("chilled\n");
	exit(0);
}
