/* @@opts: -q */
BEGIN { @[1, "a"] = sum(10); @[2, "b"] = sum(20); printa("%d %s %@d\n", @); exit(0); }
