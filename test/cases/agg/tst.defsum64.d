/* @@opts: -q */
BEGIN { @[(long)1] = sum(10); @[(long)2] = sum(-4); @[(long)3] = sum(100); exit(0); }
