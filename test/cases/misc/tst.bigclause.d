/*
 * A clause of 80,000 statements compiles to more BPF instructions than the
 * kernel loads in one program: the error names the clause, in the
 * generated file, as a compile error does.
 */
/* @@setup: sh bigif.sh 80000 1 > /tmp/sonde-bigclause.d */
/* @@opts: -q -s /tmp/sonde-bigclause.d */
/* @@status: 1 */
/* @@stderr: /tmp/sonde-bigclause.d:2:1: clause is too large: it compiles to */
/* @@stderr: BPF instructions, and the kernel loads at most 1000000 in a program */
END
{
	printf("end: y=%d\n", y);
}
