/*
 * A clause with more paths than the kernel's verifier follows (a million
 * instructions in all): the error names the clause, not the program, and
 * says what the verifier did; its log only with -v.
 */
/* @@setup: sh complex.sh 3000 > /tmp/sonde-complex.d */
/* @@opts: -q -s /tmp/sonde-complex.d */
/* @@status: 1 */
/* @@stderr: /tmp/sonde-complex.d:4:1: clause is too complex for the kernel's BPF verifier, which gave up after following 1000001 instructions along its paths */
/* @@stderr: (run with -v for the verifier log) */
END
{
	printf("end\n");
}
