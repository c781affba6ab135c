/* io:::start/done on a real file written with O_DIRECT by dd (over its blocks: a truncation would make dd issue discards too): its bytes and requests are exact, and each start meets its done. */
/* @@opts: -q -c 'dd if=/dev/zero of=/var/tmp/sonde-io-test bs=64k count=32 oflag=direct conv=notrunc status=none' */
io:::start /pid == $target && args[0]->b_flags & B_WRITE/
{
	start[args[0]->b_edev, args[0]->b_blkno] = timestamp;
	@bytes = sum(args[0]->b_bcount);
}
io:::done /start[args[0]->b_edev, args[0]->b_blkno]/
{
	@n = count();
	@lat = quantize(timestamp - start[args[0]->b_edev, args[0]->b_blkno]);
	start[args[0]->b_edev, args[0]->b_blkno] = 0;
}
END { printa("written %@d bytes\n", @bytes); printa("done %@d\n", @n); trunc(@lat); }
