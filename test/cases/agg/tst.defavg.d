/* @@opts: -q */
BEGIN { @["x"] = avg(1); @["x"] = avg(2); @["y"] = avg(10); exit(0); }
