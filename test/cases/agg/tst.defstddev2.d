/* @@opts: -q */
BEGIN { @["a"] = stddev(10); @["a"] = stddev(20); @["b"] = stddev(5); exit(0); }
