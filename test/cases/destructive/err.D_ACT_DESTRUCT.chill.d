/* chill() is destructive: refused without -w. */
BEGIN { chill(100); exit(0); }
