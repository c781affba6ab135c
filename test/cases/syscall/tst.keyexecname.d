/*
 * Keys mixing literals and execname share one width: with the width of
 * "x", execname "sonde-sysc" and the literal "sonde-sysX" were one element.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 7' */
BEGIN { a["x"] = 1; }
syscall::getppid:entry /pid == $target/ { a[execname]++; }
syscall::exit_group:entry /pid == $target/
{
	printf("%d %d %d\n", a["x"], a["sonde-sysc"], a["sonde-sysX"]);
}
