/*
 * Keys mixing literals and copyinstr() results share one width: with the
 * width of "x", "/dev/null" and the literal "/dev/nuXX" were one element.
 */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null count=1 status=none' */
BEGIN { p["x"] = 1; }
syscall::openat:entry /pid == $target/ { p[copyinstr(arg1)]++; }
syscall::exit_group:entry /pid == $target/
{
	printf("%d %d %d %d\n", p["x"], p["/dev/zero"], p["/dev/null"], p["/dev/nuXX"]);
}
