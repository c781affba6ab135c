/* @@opts: -q */
BEGIN { @ = avg(-10); @ = avg(-5); printa("%@d\n", @); exit(0); }
