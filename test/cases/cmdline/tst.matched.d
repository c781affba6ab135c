/* @@stderr: script 'tst.matched.d' matched 2 probes */
syscall::getppid:entry { } BEGIN { exit(0); }
