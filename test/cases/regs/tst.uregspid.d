/* @@setup: gcc -O2 -o /tmp/sonde-calls ../pid/calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 3' */
/* uregs[] at a pid entry probe ("User Process Tracing", "uregs Array"):
   work(i, 2) has its arguments in RDI and RSI as the x86-64 calling
   convention passes them, equal to arg0 and arg1 the provider gives; the
   program counter is work's first instruction, R_SP is R_RSP, and
   ucaller is in main, which calls work. At the return probe, RAX holds
   the value returned (arg1) and ucaller is still in main. */
pid$target::work:entry
{
	printf("entry %d %d %d %d %d\n", uregs[R_RDI], uregs[R_RSI], uregs[R_RDI] == arg0,
	    uregs[R_RSI] == arg1, uregs[R_SP] == uregs[R_RSP]);
	@pc[ufunc(uregs[R_PC]), ufunc(ucaller)] = count();
}

pid$target::work:return
{
	printf("return %d %d\n", uregs[R_RAX], uregs[R_RAX] == arg1);
	@ret[ufunc(ucaller)] = count();
}

END
{
	printa("pc %A caller %A %@d\n", @pc);
	printa("return to %A %@d\n", @ret);
}
