/* @@opts: -q */
BEGIN { @[1] = sum(10); @[2] = sum(-4); @[3] = sum(100); exit(0); }
