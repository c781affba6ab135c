/* @@opts: -q */
BEGIN { a[1] = 1; a[1] += 5; a[1]++; ++a[1]; a[2] -= 3; printf("%d %d\n", a[1], a[2]); exit(0); }
