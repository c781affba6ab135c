/*
 * A key that is a literal in one use and probefunc in another holds the
 * whole function name: "n" first cut newfstatat to "newfsta".
 */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 0 0 0 7 3' */
syscall::newfstatat:entry, syscall::statx:entry /pid == $target && (int)arg0 == -100/
{
	@["n"] = count();
	@[probefunc == "statx" ? "x" : probefunc] = count();
}
END { printa("%s %@d\n", @); }
