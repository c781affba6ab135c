/* @@opts: -q */
BEGIN { @mn = min(4); @mn = min(-9); @mx = max(4); @mx = max(9); exit(0); }
