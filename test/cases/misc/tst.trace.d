/* @@opts: -q */
BEGIN { trace(42); trace("x"); exit(0); }
