/* @@opts: -q */
BEGIN { @["k1", 10] = sum(2); @["k2", 20] = sum(1); printa("%s:%d\n", @); printa("%@d\n", @); exit(0); }
