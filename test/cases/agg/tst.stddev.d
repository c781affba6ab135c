/* @@opts: -q */
BEGIN { @s = stddev(2); @s = stddev(4); @s = stddev(4); @s = stddev(4); @s = stddev(5); @s = stddev(5); @s = stddev(7); @s = stddev(9); printa("%@d\n", @s); exit(0); }
