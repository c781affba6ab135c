/* @@opts: -q */
BEGIN { k = "key"; a[k, 2] = 9; a[strjoin(k, "2"), 2] = 10; printf("%d %d\n", a["key", 2], a["key2", 2]); exit(0); }
