/* normalize() also applies to the output at exit. */
/* @@opts: -q */
BEGIN { @["a"] = sum(100); @["b"] = sum(10); normalize(@, 4); exit(0); }
