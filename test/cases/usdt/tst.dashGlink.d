/*
 * sonde -G writes the object a build links with the objects holding a
 * provider's probes: objects compiled with sonde -h's header and one that
 * only declares a semaphore (as sys/sdt.h-style code does) link with it
 * into a program whose probes fire and whose semaphore both see set; a
 * program of the declaring object alone links only with it.
 */
/* @@setup: mkdir -p /tmp/sonde-G && ../../../bin/sonde -h -s gprov.d -o /tmp/sonde-G/gprov.h */
/* @@setup: gcc -O1 -c -I/tmp/sonde-G -o /tmp/sonde-G/gmain.o gmain.c && gcc -O1 -c -o /tmp/sonde-G/glegacy.o glegacy.c && gcc -O1 -c -o /tmp/sonde-G/gmain2.o gmain2.c */
/* @@setup: ../../../bin/sonde -G -s gprov.d -o /tmp/sonde-G/gprov.o /tmp/sonde-G/gmain.o /tmp/sonde-G/glegacy.o */
/* @@setup: gcc -o /tmp/sonde-G/gprog /tmp/sonde-G/gmain.o /tmp/sonde-G/glegacy.o /tmp/sonde-G/gprov.o */
/* @@setup: ! gcc -o /tmp/sonde-G/gprog2 /tmp/sonde-G/gmain2.o /tmp/sonde-G/glegacy.o 2>/dev/null */
/* @@setup: gcc -o /tmp/sonde-G/gprog2 /tmp/sonde-G/gmain2.o /tmp/sonde-G/glegacy.o /tmp/sonde-G/gprov.o && /tmp/sonde-G/gprog2 */
/* @@opts: -q -c /tmp/sonde-G/gprog */
reachg$target:::tick
{
	printf("tick %d, semaphore set as glegacy.o sees it: %d\n", arg0, arg1);
}

reachg$target:::done
{
	printf("done\n");
}
