/* strtoll() as dtrace_strtoll: leading blanks and tabs, one sign, "0x" or
   "0X" skipped for base 16 when a hexadecimal digit follows, then the
   digits of the base (letters for 10 to 35) until another character,
   accumulated in 64 bits without an overflow check. */
/* @@opts: -q */
BEGIN
{
	printf("%d %d %d %d\n", strtoll("123"), strtoll("-123"), strtoll("+7"), strtoll(" \t 42xyz"));
	printf("%d %d %d %d\n", strtoll("0x1F", 16), strtoll("1f", 16), strtoll("-0xff", 16), strtoll("0xg", 16));
	printf("%d %d %d %d\n", strtoll("0X10", 16), strtoll("0x10"), strtoll("777", 8), strtoll("789", 8));
	printf("%d %d %d %d\n", strtoll("101", 2), strtoll("12", 2), strtoll("zz", 36), strtoll("Zz", 36));
	printf("%d %d %d %d\n", strtoll(""), strtoll("abc"), strtoll("- 5"), strtoll("--5"));
	printf("%d %d\n", strtoll("00000001"), strtoll("1 2"));
	printf("%d\n", strtoll("9223372036854775807"));
	printf("%d\n", strtoll("-9223372036854775808"));
	printf("%d\n", strtoll("18446744073709551615"));
	printf("%d\n", strtoll("99999999999999999999"));
	s = "  -0x7fffffff";
	this->s = "cafe";
	printf("%d %d %d\n", strtoll(s, 16), strtoll(this->s, 16), strtoll(this->s, 10));
	exit(0);
}
