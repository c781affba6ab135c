/* arg0-arg5 come from registers, arg6 and beyond from the stack; probeprov/probemod/probefunc/probename name the probe. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 3' */
pid$target::many:entry
{
	printf("%d %d %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7);
	printf("%s %s %s %s\n", probeprov == strjoin("pid", lltostr($target)) ? "pid$target" : probeprov, probemod, probefunc, probename);
}
