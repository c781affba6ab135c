/* ustackdepth counts the frames of the user stack ustack() prints: inside middle(), which outer() calls, it is one more than inside outer() (probes past the frame set-up, where the frame-pointer walk sees every caller). */
/* @@setup: gcc -O1 -fno-optimize-sibling-calls -fno-omit-frame-pointer -o /tmp/sonde-flowfp flow.c */
/* @@opts: -q -c /tmp/sonde-flowfp */
pid$target::outer:4
{
	o = ustackdepth;
}

pid$target::middle:4
{
	printf("%d %d\n", ustackdepth - o, ustackdepth >= 3);
}
