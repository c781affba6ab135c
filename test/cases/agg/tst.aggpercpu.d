/*
 * aggpercpu keeps per-CPU copies of the aggregations for libdtrace's
 * consumers (dtrace_aggdata_t's dtada_percpu: intrstat, powertop); the
 * dtrace command's printa() prints the totals, with or without it.
 * (tick fires on one CPU: the global i has no concurrent writers.)
 */
/* @@opts: -q -x aggpercpu */
#pragma D option aggpercpu
tick-1ms
/i++ < 40/
{
	@n = count();
	@c[1] = sum(1);
	@q = quantize(8);
}

tick-100ms
/i >= 40/
{
	exit(0);
}

END
{
	printa("n %@d\n", @n);
}
