/*
 * An associative array's string key is as wide as the widest string any
 * use stores, for global and self-> arrays and multi-part keys: with the
 * width of "a", "abcdefgh_1" and "abcdefgh_2" were one element.
 */
/* @@opts: -q */
BEGIN
{
	a["a"] = 1; a["abcdefgh_1"] = 2; a["abcdefgh_2"] = 3;
	self->s["a"] = 4; self->s["abcdefgh_1"] = 5; self->s["abcdefgh_2"] = 6;
	m[1, "a"] = 7; m[1, "abcdefgh_1"] = 8; m[1, "abcdefgh_2"] = 9;
	printf("%d %d %d\n", a["a"], a["abcdefgh_1"], a["abcdefgh_2"]);
	printf("%d %d %d\n", self->s["a"], self->s["abcdefgh_1"], self->s["abcdefgh_2"]);
	printf("%d %d %d\n", m[1, "a"], m[1, "abcdefgh_1"], m[1, "abcdefgh_2"]);
	printf("%d %d\n", a[strjoin("abcdefgh", "_1")], a[substr("xabcdefgh_2", 1)]);
	exit(0);
}
