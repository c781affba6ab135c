/* sizeof of a struct nothing defines has no value (not 0). */
BEGIN { trace(sizeof(struct nosuch)); exit(0); }
