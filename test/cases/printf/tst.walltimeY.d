/* %Y prints a 64-bit time in nanoseconds as "year month day hh:mm:ss". */
/* @@opts: -q */
BEGIN { printf("%Y\n", walltimestamp); exit(0); }
