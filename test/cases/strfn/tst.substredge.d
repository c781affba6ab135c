/* @@opts: -q */
/* substr(s, index, length) with the arguments DTrace accepts: a negative
   index counts from the end of the string, and one before its start
   shortens the length by as much (an index that is still negative after
   that gives ""); a negative length leaves that many characters off the
   end; an index at or past the end gives ""; a length past the end stops
   at the end. */
BEGIN
{
	s = "hello";
	printf("[%s] [%s] [%s] [%s]\n", substr(s, -3), substr(s, -2, 1), substr(s, -5), substr(s, -6));
	printf("[%s] [%s] [%s]\n", substr(s, -10, 3), substr(s, -7, 4), substr(s, -10, 12));
	printf("[%s] [%s] [%s] [%s]\n", substr(s, 1, -1), substr(s, 0, -4), substr(s, 2, -3), substr(s, 0, -9));
	printf("[%s] [%s] [%s] [%s]\n", substr(s, 5), substr(s, 10, 2), substr(s, 2, 100), substr(s, 0, 0));
	exit(0);
}
