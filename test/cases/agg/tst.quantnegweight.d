/* A negative total draws its bar to the left of the axis. */
/* @@opts: -q */
BEGIN { @ = quantize(1, -3); exit(0); }
