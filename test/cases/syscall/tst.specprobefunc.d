/*
 * A speculation kept in an array keyed by probefunc is found and committed
 * by the return probe.
 */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=3 status=none' */
syscall::read:entry /pid == $target && arg0 == 0/
{
	s[probefunc] = speculation();
	speculate(s[probefunc]);
	printf("%s:%s\n", probefunc, probename);
}
syscall::read:return /pid == $target && s[probefunc]/ { commit(s[probefunc]); s[probefunc] = 0; }
