/* @@opts: -q -Z */
syscall::nosuchcall:entry { printf("no\n"); }
BEGIN { printf("yes\n"); exit(0); }
