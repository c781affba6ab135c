/* Equal values are ordered by key. */
/* @@opts: -q */
BEGIN { @["c"] = count(); @["a"] = count(); @["b"] = count(); @["B"] = count(); printa("%s\n", @); exit(0); }
