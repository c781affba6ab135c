/* @@opts: -q -x aggsortkey -x aggsortrev */
BEGIN { @["a"] = sum(3); @["c"] = sum(2); @["b"] = sum(1); printa("%s %@d\n", @); exit(0); }
