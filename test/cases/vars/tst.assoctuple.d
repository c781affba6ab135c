/* @@opts: -q */
BEGIN { a["x", 1, 2] = 5; a["x", 1, 3] = 6; printf("%d %d %d\n", a["x", 1, 2], a["x", 1, 3], a["y", 1, 2]); exit(0); }
