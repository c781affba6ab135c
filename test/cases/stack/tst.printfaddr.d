/* printf's and printa's %a name a kernel address given as an integer as module`symbol+0xoffset (dtrace_addr2str), as hotkernel prints profile's arg0; the width applies to the name. */
/* @@opts: -q */
profile-997
/arg0/
{
	@pc[arg0] = count();
	printf("%a\n[%-60a]\n", arg0, arg0);
	exit(0);
}

END
{
	printa("%a %@d\n", @pc);
}
