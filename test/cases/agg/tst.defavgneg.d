/* @@opts: -q */
BEGIN { @ = avg(-10); @ = avg(-5); exit(0); }
