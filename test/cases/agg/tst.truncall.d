/* trunc() with no count empties the aggregation: nothing is printed at exit. */
/* @@opts: -q */
BEGIN { @["a"] = sum(1); @["b"] = sum(2); trunc(@); exit(0); }
