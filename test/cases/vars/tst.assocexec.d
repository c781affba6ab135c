/* @@opts: -q */
BEGIN { a[execname] = 3; printf("%d %d\n", a["sonde"], a["other"]); exit(0); }
