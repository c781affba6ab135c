/* The ERROR probe's arguments are DTrace's: arg1 the EPID of the failing clause, arg2 its action (0 for the predicate), arg3 -1 (BPF code has no DIF offset), arg4 the DTRACEFLT_* code, arg5 the address or value. */
/* @@opts: -q */
/* @@stderr: divide-by-zero in action #3 */
BEGIN
{
	myepid = epid;
	x = 0;
	y = 1 / x;
}

BEGIN
/ *(int *)0x4000 == 1 /
{
}

BEGIN
{
	z = *(int *)0x1000;
}

ERROR
{
	printf("%d %d %d %s %x\n", arg1 == myepid, arg2, arg3,
	    arg4 == DTRACEFLT_DIVZERO ? "DIVZERO" : arg4 == DTRACEFLT_BADADDR ? "BADADDR" : "other", arg5);
}

BEGIN
{
	exit(0);
}

END
{
	printf("%d %d %d %d\n", DTRACEFLT_UNKNOWN, DTRACEFLT_ILLOP, DTRACEFLT_BADSTACK, DTRACEFLT_LIBRARY);
}
