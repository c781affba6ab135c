/* @@opts: -q */
BEGIN { a[1, "b"] = 10; a[2, "b"] = 20; printf("%d\n", a[1, "b"] + a[2, "b"]); exit(0); }
