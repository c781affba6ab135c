/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 6 0 2' */
syscall::getppid:entry,
syscall::nanosleep:entry
/pid == $target/
{
	@[probeprov, probefunc, probename] = count();
}
END { printa("%s:%s:%s %@d\n", @); }
