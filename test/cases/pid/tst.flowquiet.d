/* -F with -q: dtrace(1) prints the flow header and each firing's indented function even when quiet; printf's output follows on the same line. */
/* @@setup: gcc -O1 -fno-optimize-sibling-calls -o /tmp/sonde-flow flow.c */
/* @@opts: -q -F -c /tmp/sonde-flow */
pid$target::outer:entry, pid$target::inner:entry
{
	printf("%d\n", arg0);
}

pid$target::outer:return, pid$target::inner:return
{
	printf("= %d\n", arg1);
}
