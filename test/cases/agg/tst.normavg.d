/* @@opts: -q */
BEGIN { @ = avg(100); @ = avg(200); normalize(@, 10); printa("%@d\n", @); exit(0); }
