/*
 * strsize may be below 8 and need not be a multiple of 8: every string (a
 * variable of any scope, an associative array's value, a recorded value, a
 * constant) holds at most strsize - 1 characters and its NUL, as DTrace
 * sizes its string type.
 */
/* @@opts: -q -x strsize=5 */
BEGIN
{
	x = "abcdefghij";
	self->y = "klmnopqrst";
	this->z = "uvwxyz";
	a["k"] = "0123456789";
	printf("%s %s %s %s %s %d\n", x, self->y, this->z, a["k"], "ABCDEFGH", strlen(x));
	trace(strjoin(x, "zz"));
	@[x] = count();
	exit(0);
}
