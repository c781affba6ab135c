/* @@opts: -q */
BEGIN { a[5] = 3; a[5] = 0; printf("%d\n", a[5]); exit(0); }
