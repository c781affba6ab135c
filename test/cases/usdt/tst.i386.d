/*
 * USDT probes of a 32-bit program run with -c: its auxiliary vector has
 * 4-byte entries, which were read as 8-byte ones ("no entry point in its
 * auxiliary vector"). Each firing counted, its arguments exact.
 */
/* @@setup: ../../../bin/sonde -h -s i386prov.d -o /tmp/sonde-i386prov.h */
/* @@setup: gcc -m32 -O1 -nostdlib -static -fno-pic -no-pie -include /tmp/sonde-i386prov.h -o /tmp/sonde-usdt-i386 i386.c */
/* @@opts: -q -c /tmp/sonde-usdt-i386 */
audx$target:::tick
{
	@n = count();
	@s0 = sum(arg0);
	@s1 = sum(arg1);
	@mn = min(arg1);
}

END
{
	printa("fired %@d", @n);
	printa(" sum0 %@d", @s0);
	printa(" sum1 %@d", @s1);
	printa(" min1 %@d\n", @mn);
}
