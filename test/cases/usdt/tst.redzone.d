/* A USDT probe of sonde -h in a gcc -O1 leaf function with its locals in the red zone: tracing changes nothing the program computes (a 5-byte nop site was rewritten by Linux 6.18 into a call writing below %rsp: 99999 of 100000 sums wrong). */
/* @@setup: mkdir -p /tmp/sonde-rz && ../../../bin/sonde -h -s redzone_prov.d -o /tmp/sonde-rz/redzone.h */
/* @@setup: gcc -O1 -I/tmp/sonde-rz -o /tmp/sonde-rz/redzone redzone.c */
/* @@opts: -q -c '/tmp/sonde-rz/redzone 100000' */
rz$target:::fill
{
	@fired = count();
	@argbad = sum(arg1 != arg0 - 1);
}
END
{
	printa("fired %@d argument mismatches %@d\n", @fired, @argbad);
}
