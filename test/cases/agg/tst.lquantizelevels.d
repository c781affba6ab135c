/* @@opts: -q */
/* a second lquantize() of an aggregation whose limit reaches the same levels
   (0 to 10 by 2: a limit of 11 adds no level) is the same aggregation, as in
   DTrace: both values land in its buckets. */
BEGIN { @a = lquantize(3, 0, 10, 2); }
BEGIN { @a = lquantize(11, 0, 11, 2); }
BEGIN { printa(@a); exit(0); }
