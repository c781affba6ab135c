/* The entry and return probes of one process read their own arguments: at entry arg0 is the first argument, at return arg1 is the return value. */
/* @@setup: gcc -O1 -fno-optimize-sibling-calls -o /tmp/sonde-flow flow.c */
/* @@opts: -q -c /tmp/sonde-flow */
pid$target::middle:entry
{
	printf("middle(%d)\n", arg0);
}

pid$target::inner:return
{
	printf("inner returns %d\n", arg1);
}

pid$target::outer:return
{
	printf("outer returns %d\n", arg1);
}
