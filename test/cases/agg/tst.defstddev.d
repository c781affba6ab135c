/* @@opts: -q */
BEGIN { @s = stddev(1); @s = stddev(3); @s = stddev(5); @s = stddev(7); exit(0); }
