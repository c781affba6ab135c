/*
 * maxframes caps the depth of stack() and ustack(), given or taken from
 * stackframes, without an error: more frames than allowed are silently
 * fewer (Oracle's DTrace for Linux; illumos has no such option).
 */
/* @@opts: -q -x maxframes=2 -x stackframes=50 */
BEGIN
{
	stack();
	stack(10);
	ustack(5);
	exit(0);
}
