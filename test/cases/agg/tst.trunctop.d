/* @@opts: -q */
BEGIN { @["a"] = sum(1); @["b"] = sum(2); @["c"] = sum(3); trunc(@, 2); printa("%s %@d\n", @); exit(0); }
