/* strstr(): the rest of s from the first occurrence of sub. When sub is
   absent DTrace returns NULL, which compares equal to "" (dtrace_strncmp);
   sonde gives "" (DTrace would fault on printing it). */
/* @@opts: -q */
BEGIN
{
	s = "foo bar baz bar";
	printf("[%s]\n", strstr(s, "bar"));
	printf("[%s]\n", strstr(s, "baz"));
	printf("[%s]\n", strstr(s, "bar baz bar"));
	printf("[%s]\n", strstr(s, ""));
	printf("[%s]\n", strstr("", ""));
	printf("[%s]\n", strstr("aaa", "aa"));
	printf("%d %d %d\n", strstr(s, "qux") == "", strstr("", "x") == "", strstr(s, "bar") == "bar baz bar");
	this->t = strstr(s, "baz");
	printf("%s %d %s\n", this->t, strlen(this->t), strjoin(strstr(s, "bar "), "!"));
	printf("[%s]\n", strstr(execname, "on"));
	exit(0);
}
