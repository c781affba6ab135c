/* @@opts: -q */
BEGIN { a["x"] = 1; a["y"] = 2; printf("%d %d %d\n", a["x"], a["y"], a["z"]); exit(0); }
