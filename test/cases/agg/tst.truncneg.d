/* trunc() with a negative count keeps the smallest values. */
/* @@opts: -q */
BEGIN { @["a"] = sum(1); @["b"] = sum(2); @["c"] = sum(3); trunc(@, -1); printa("%s %@d\n", @); exit(0); }
