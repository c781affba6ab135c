/* printa() of quantizations: rows in order of the distributions' weighted sums. */
/* @@opts: -q */
BEGIN { @["a"] = quantize(8); @["b"] = quantize(1); @["b"] = quantize(1); printa("%s%@d\n", @); exit(0); }
