/* Without -c or -p an integer names no process's address: %A wants a _usymaddr (uaddr(), usym()...), as pfcheck_uaddr has it. */
/* @@stderr: prototype: pointer or integer (with -p/-c) or _usymaddr (without -p/-c) */
profile-997
/arg1/
{
	printf("%A\n", arg1);
	exit(0);
}
