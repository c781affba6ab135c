/* @@opts: -q */
BEGIN { @ = sum(1000); normalize(@, 10); printa("%@d\n", @); exit(0); }
