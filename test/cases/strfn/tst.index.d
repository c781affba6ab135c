/* index() and rindex() as DTrace does them, after Perl: a negative start
   is 0 for index() and finds only "" (at 0) for rindex(); a start past the
   end finds only "" (at the length) for index() and is the length for
   rindex(); "" is found at the start position. Strings from variables,
   this-> variables and execname. */
/* @@opts: -q */
BEGIN
{
	s = "foobarbazbar";
	this->sub = "bar";
	printf("%d %d\n", index(s, this->sub), rindex(s, this->sub));
	printf("%d %d\n", index(s, "bar", 4), rindex(s, "bar", 8));
	printf("%d %d\n", index(s, "bar", 3), rindex(s, "bar", 9));
	printf("%d %d\n", index(s, "zzz"), rindex(s, "zzz"));
	printf("%d %d\n", index(s, ""), rindex(s, ""));
	printf("%d %d\n", index(s, "", 100), rindex(s, "", -5));
	printf("%d %d\n", index(s, "bar", -7), rindex(s, "bar", 100));
	printf("%d %d\n", index(s, "bar", 100), rindex(s, "bar", -1));
	printf("%d %d\n", index("", ""), rindex("", "", 3));
	printf("%d %d\n", index("", "x"), rindex("", "x"));
	printf("%d %d\n", index(s, s), index(this->sub, s));
	printf("%d %d\n", index("aaaa", "aa"), rindex("aaaa", "aa"));
	this->pos = 5;
	printf("%d %d\n", index(s, "a", this->pos), rindex(s, "a", this->pos));
	printf("%d\n", index(execname, "sonde"));
	exit(0);
}
