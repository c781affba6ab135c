/* A name that is no type is an error, not a 64-bit integer. */
BEGIN { trace((nosuch_t)1); exit(0); }
