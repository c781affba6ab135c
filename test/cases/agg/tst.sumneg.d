/* @@opts: -q */
BEGIN { @ = sum(-5); @ = sum(2); printa("%@d\n", @); exit(0); }
