/* @@opts: -q */
BEGIN { @a = avg(1); @a = avg(2); @m = min(7); @m = min(3); @x = max(7); @x = max(3); @s = stddev(2); @s = stddev(4); printa("%@d %@d %@d %@d\n", @a, @m, @x, @s); exit(0); }
