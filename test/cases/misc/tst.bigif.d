/*
 * An if statement whose body (4,100 statements, ~50,000 BPF instructions)
 * is longer than a BPF jump's 16-bit offset reaches: with a false
 * condition, the body must not run (it used to, from the middle).
 */
/* @@setup: sh bigif.sh 4100 0 > /tmp/sonde-bigif.d */
/* @@opts: -q -s /tmp/sonde-bigif.d */
END
{
	printf("end: y=%d\n", y);
}
