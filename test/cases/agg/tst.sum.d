/* @@opts: -q */
BEGIN { @a = sum(5); @a = sum(7); printa("%@d\n", @a); exit(0); }
