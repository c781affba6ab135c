/* @@opts: -q */
/* getmajor() and getminor() split a device number as the Linux kernel
   encodes its dev_t (MINORBITS 20: the major in the 12 bits above 20 of
   minor). TestGetMajorMinor checks them on a real file system's. */
BEGIN
{
	printf("%d %d\n", getmajor(0x800001), getminor(0x800001));
	printf("%d %d\n", getmajor(0xfff12345), getminor(0xfff12345));
	printf("%d %d\n", getmajor((254 << 20) | 3), getminor((254 << 20) | 3));
	exit(0);
}
