/* With -c, printa's and printf's %A name an integer as an address of $target, module`symbol+0xoffset (dtrace_uaddr2str), as hotuser prints profile's arg1: the hot function leads; the first tick may be anywhere. */
/* @@setup: gcc -O1 -fno-omit-frame-pointer -o /tmp/sonde-hot hot.c */
/* @@opts: -q -c /tmp/sonde-hot */
profile-997
/pid == $target && arg1/
{
	@pc[arg1] = count();
}

profile-997
/pid == $target && arg1 && !printed/
{
	printed = 1;
	printf("%A\n", arg1);
}

END
{
	trunc(@pc, 1);
	printa("%A\n", @pc);
}
