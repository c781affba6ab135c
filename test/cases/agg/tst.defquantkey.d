/* @@opts: -q */
BEGIN { @["read"] = quantize(10); @["write"] = quantize(100); exit(0); }
