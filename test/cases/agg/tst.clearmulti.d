/* @@opts: -q */
BEGIN { @["a"] = sum(1); @["b"] = sum(2); clear(@); printa("%s %@d\n", @); exit(0); }
