/* freopen() writes to a file of the user's choosing: destructive,
   refused without -w. */
BEGIN { freopen("/tmp/sonde-freopen"); exit(0); }
