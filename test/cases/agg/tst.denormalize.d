/* @@opts: -q */
BEGIN { @ = sum(1000); normalize(@, 10); denormalize(@); printa("%@d\n", @); exit(0); }
