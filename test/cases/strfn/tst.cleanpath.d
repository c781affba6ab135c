/* @@opts: -q */
/* cleanpath() as the guide defines it: "//" is one slash, "/./" is
   dropped and "/../" removes the component before it; what is not one of
   these ("..b", ".c") is kept, and so are a trailing slash and a trailing
   "/.", as DTrace's scan leaves them. */
BEGIN
{
	printf("[%s] [%s] [%s]\n", cleanpath("/a/../b/./c//d"), cleanpath("/a/.."), cleanpath("/usr/lib/../bin/./x"));
	printf("[%s] [%s] [%s]\n", cleanpath("/../x"), cleanpath("/a/..b/.c"), cleanpath("//x///y"));
	printf("[%s] [%s] [%s]\n", cleanpath("/a/b/"), cleanpath("/a/."), cleanpath("/a/b/c/../../d"));
	exit(0);
}
