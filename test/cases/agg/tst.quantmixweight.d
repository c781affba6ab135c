/* Positive and negative totals share the width, either side of the axis. */
/* @@opts: -q */
BEGIN { @ = quantize(1, 2); @ = quantize(4, -2); exit(0); }
