/* -Z: a process with no USDT probes yet matches nothing rather than failing (a library it loads later may bring some). */
/* @@opts: -q -Z -c /bin/true */
nosuch$target:::x { }
BEGIN { printf("ok\n"); }
