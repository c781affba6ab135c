/* @@opts: -q */
BEGIN { @["abc"] = sum(42); printa("%-10s|%8@d|\n", @); exit(0); }
