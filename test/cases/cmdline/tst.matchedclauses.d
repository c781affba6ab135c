/* dtrace counts a probe once for every clause that enables it. */
/* @@stderr: script 'tst.matchedclauses.d' matched 6 probes */
BEGIN { } BEGIN { }
syscall::getppid:entry, syscall::getpid:entry /0/ { }
BEGIN { exit(0); }
END { }
