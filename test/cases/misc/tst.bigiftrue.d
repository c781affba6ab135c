/*
 * An if statement whose body (4,100 statements, ~50,000 BPF instructions)
 * is longer than a BPF jump's 16-bit offset reaches: with a true
 * condition, the body must run whole.
 */
/* @@setup: sh bigif.sh 4100 1 > /tmp/sonde-bigiftrue.d */
/* @@opts: -q -s /tmp/sonde-bigiftrue.d */
END
{
	printf("end: y=%d\n", y);
}
