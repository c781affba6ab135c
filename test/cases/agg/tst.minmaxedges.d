/*
 * min() and max() keep their extreme XORed with a mask, so that the
 * zeroed word is the empty value (plan.ExtremeMask): the values at and
 * next to the ends of int64, and 0, come back as given, alone or with
 * others.
 */
/* @@opts: -q */
BEGIN
{
	@a = min(0x7fffffffffffffffLL);
	@b = max((int64_t)0x8000000000000000LL);
	@c = min(0);
	@d = max(0);
	@e = min(-1);
	@e = min((int64_t)0x8000000000000000LL);
	@e = min(5);
	@f = max(-1);
	@f = max(0x7fffffffffffffffLL);
	@f = max(5);
	@g = min(0x7ffffffffffffffeLL);
	@g = min(0x7fffffffffffffffLL);
	@h = max((int64_t)0x8000000000000001LL);
	@h = max((int64_t)0x8000000000000000LL);
	printa("%@d %@d %@d %@d %@d %@d %@d %@d\n", @a, @b, @c, @d, @e, @f, @g, @h);
	exit(0);
}
