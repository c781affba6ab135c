/* With aggsortkey, integer keys sort as unsigned 64-bit values. */
/* @@opts: -q -x aggsortkey */
BEGIN { @[(int64_t)-2] = sum(1); @[(int64_t)2] = sum(2); @[(int64_t)0] = sum(3); @[(int64_t)-1] = sum(4); @[(int64_t)1] = sum(5); printa("%d %@d\n", @); exit(0); }
