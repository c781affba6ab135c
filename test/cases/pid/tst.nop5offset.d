/* An offset probe on a 5-byte nop in a leaf function is not placed, with a warning (Linux 6.18 rewrites a uprobe there into a call writing below %rsp, over the locals: 999 of 1000 results were wrong); the entry probe of the same function is. */
/* @@setup: mkdir -p /tmp/sonde-rz && gcc -O1 -o /tmp/sonde-rz/nop5 nop5.c */
/* @@opts: -q -c '/tmp/sonde-rz/nop5 1000' */
/* @@stderr: 1 probe site could not be placed (the instruction there is a 5-byte nop */
pid$target:a.out:leaf:e
{
	@nop = count();
}
pid$target:a.out:leaf:entry
{
	@entry = count();
}
END
{
	printa("entry %@d\n", @entry);
}
