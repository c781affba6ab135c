/* @@opts: -q */
BEGIN { x = 5; if (x > 3) { @big = count(); } else { @small = count(); } printa("%@d\n", @big); exit(0); }
