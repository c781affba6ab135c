/* @@opts: -q -b 16k */
/* -b sets the principal buffer size, as -x bufsize does. */
BEGIN { printf("ok\n"); exit(0); }
