/*
 * Key width is decided once per aggregation, for every key that builds it:
 * multi-part keys, ?: choosing between literals of different lengths, and
 * string functions' results, printed by printa.
 */
/* @@opts: -q */
BEGIN
{
	i = 0;
	@m[1, "a"] = count();
	@m[2, "abcdefgh_1"] = count();
	@m[2, "abcdefgh_2"] = count();
	@m[2, "abcdefgh_2"] = count();
	@t["x"] = count();
	@t[i ? "x" : "abcdefgh_1"] = count();
	@t[i ? "x" : "abcdefgh_2"] = count();
	@t[i ? "x" : "abcdefgh_2"] = count();
	@t[strjoin("abcdefgh", "_3")] = count();
	@t[strjoin("abcdefgh", "_3")] = count();
	@t[strjoin("abcdefgh", "_3")] = count();
	printa("%d %s %@d\n", @m);
	printa("%s %@d\n", @t);
	exit(0);
}
