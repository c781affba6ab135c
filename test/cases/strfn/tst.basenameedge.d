/* @@opts: -q */
/* basename() and dirname() at their edges, as DTrace defines them (the
   guide: "basename ... like basename(1)", "dirname ... like dirname(1)"):
   trailing slashes are not part of the last component, a string of
   slashes is "/" for both, the empty string and "." give ".", and "./"
   is "." in ".". */
BEGIN
{
	printf("[%s] [%s]\n", basename("./"), dirname("./"));
	printf("[%s] [%s]\n", basename("/"), dirname("/"));
	printf("[%s] [%s]\n", basename("///"), dirname("///"));
	printf("[%s] [%s]\n", basename(""), dirname(""));
	printf("[%s] [%s]\n", basename("."), dirname("."));
	printf("[%s] [%s]\n", basename("a"), dirname("a"));
	printf("[%s] [%s]\n", basename("/a"), dirname("/a"));
	printf("[%s] [%s]\n", basename("/usr/lib/"), dirname("/usr/lib/"));
	printf("[%s] [%s]\n", basename("//a//b//"), dirname("//a//b//"));
	printf("[%s] [%s]\n", basename("a/b"), dirname("a/b"));
	this->p = "/var/tmp/file.txt";
	printf("[%s] [%s]\n", basename(this->p), dirname(dirname(this->p)));
	exit(0);
}
