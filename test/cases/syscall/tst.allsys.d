/*
 * One clause per system call (472 clauses on raw_syscalls:sys_exit, each
 * with a quantize): more code than one BPF program can jump across with
 * 16-bit offsets or the verifier can walk, so the clauses are spread over
 * several programs run in order. Each call must be counted exactly once.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@setup: sh allsys.sh ../../../bin/sonde > /tmp/sonde-allsys.d */
/* @@opts: -q -s /tmp/sonde-allsys.d -c '/tmp/sonde-sysc 500 0 3' */
END
{
	printf("getppid %d nanosleep %d\n", n_getppid, n_nanosleep);
	trunc(@q);
}
