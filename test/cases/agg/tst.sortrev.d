/* @@opts: -q -x aggsortrev */
BEGIN { @["b"] = count(); @["a"] = count(); @["a"] = count(); printa("%s=%@d\n", @); exit(0); }
