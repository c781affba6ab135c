/* @@opts: -q */
BEGIN { @["k"] = quantize(4); printa("key %s\n%@d\n", @); exit(0); }
