/* aggsortrev reverses the whole order, the key tie-break included. */
/* @@opts: -q -x aggsortrev */
BEGIN { @["c"] = count(); @["a"] = count(); @["b"] = count(); @["d"] = count(); @["d"] = count(); printa("%s %@d\n", @); exit(0); }
