/* @@opts: -q */
BEGIN { a[pid] = 1; printf("%d %d\n", a[pid], a[pid + 1]); exit(0); }
