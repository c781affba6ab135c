/*
 * cpc:::page-faults-all-10 fires once every 10 page faults on each CPU: a
 * process touching 20000 fresh pages is sampled about 2000 times, and
 * samples times 10 is within 10 % of the faults the kernel counted for it
 * (the count it reports through write(-1, p, n) before exiting).
 */
/* @@setup: gcc -O1 -o /tmp/sonde-cpcfaults faults.c */
/* @@opts: -q -c /tmp/sonde-cpcfaults */
cpc:::page-faults-all-10
/pid == $target/
{
	samples++;
	kernel += arg0 != 0;
	user += arg1 != 0;
	both += arg0 != 0 && arg1 != 0;
}

syscall::write:entry
/pid == $target && (int)arg0 == -1/
{
	faults = arg2;
}

END
{
	printf("faults>=20000=%d\n", faults >= 20000);
	printf("within 10%%=%d\n", samples * 10 * 10 >= faults * 9 && samples * 10 * 10 <= faults * 11);
	printf("user samples=%d both=%d\n", user > samples / 2, both);
}
