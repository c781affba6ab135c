/*
 * proc:::signal-handle does not fire for a signal the process ignores,
 * which Linux delivers to it because sonde -c traces it.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-ignsig ignsig.c */
/* @@opts: -q -c /tmp/sonde-ignsig */
proc:::signal-handle /pid == $target/ { printf("handle %d, a handler %d\n", args[0], args[2] > 1); }
proc:::exit /pid == $target/ { printf("exit\n"); }
