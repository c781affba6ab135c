/* @@opts: -q */
BEGIN { @["b"] = count(); @["a"] = count(); @["a"] = count(); printa("%s=%@d\n", @); exit(0); }
