/* @@opts: -q */
/* strtok(s, delim) as the guide describes it: the first call cuts s, a
   call with NULL goes on with the same string (in this clause or a later
   one of the same firing), the delimiters may change from call to call,
   a run of delimiters separates two tokens, and past the last token the
   result is empty. */
BEGIN
{
	printf("[%s]", strtok("  /usr//lib/x86_64  ", " /"));
	printf("[%s]", strtok(NULL, "/"));
	printf("[%s]", strtok(NULL, " /"));
	printf("[%s]", strtok(NULL, "/"));
	printf("[%s]\n", strtok(NULL, "/"));
	s = "key=value;other=more";
	printf("[%s]", strtok(s, "="));
}

BEGIN
{
	printf("[%s]", strtok(NULL, ";"));
	printf("[%s]", strtok(NULL, "="));
	printf("[%s]", strtok(NULL, ""));
	printf("[%s]\n", strtok(NULL, "x"));
	printf("[%s] [%s]\n", strtok(",,,", ","), strtok("", ","));
	exit(0);
}
