/* uint, ushort, ulong and unchar are typedef names (sys/types.h on illumos, linux/types.h here): (uint)-12345 casts, it does not subtract. */
/* @@opts: -q */
BEGIN
{
	printf("%d\n", (uint)-12345);
	printf("%d\n", (ushort)-1);
	printf("%d\n", (unchar)-1);
	printf("%d\n", (ulong)-1 / 2);
	x = (uint)0x1ffffffff;
	printf("%d %d\n", x, sizeof (uint) + sizeof (ushort) + sizeof (ulong) + sizeof (unchar));
	exit(0);
}
