/* @@opts: -q */
BEGIN { @["a", "b"] = sum(3); exit(0); }
