/* @@opts: -q */
BEGIN { s = "abc"; t = "abd"; printf("%d %d %d %d\n", s == "abc", s != "abc", s < t, t < s); exit(0); }
