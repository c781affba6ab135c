/* @@opts: -q */
BEGIN { @a = avg(2); @a = avg(4); @a = avg(9); printa("%@d\n", @a); exit(0); }
