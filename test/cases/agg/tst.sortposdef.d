/* @@opts: -q */
BEGIN { @a["x"] = sum(1); @a["y"] = sum(2); @b["x"] = sum(20); @b["y"] = sum(10); printa("%s %@d %@d\n", @a, @b); exit(0); }
