/*
 * The cpu option traces one CPU: probes firing on the others record
 * nothing (profile fires on every CPU, yet only CPU 0's samples count), and
 * tick fires on that CPU. BEGIN and END run as always.
 */
/* @@opts: -q -x cpu=0 */
BEGIN
{
	printf("begin\n");
}

profile-997
{
	@p[cpu] = count();
}

tick-200ms
{
	@t[cpu] = count();
	exit(0);
}

END
{
	printa("profile on cpu %d\n", @p);
	printa("tick on cpu %d\n", @t);
}
