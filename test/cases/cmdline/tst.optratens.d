/* A rate without a suffix is a number of nanoseconds, as DTrace's
   dt_opt_rate reads it: 10^14 ns is more than a day (as a frequency it
   would have been "more than 1000000000hz"). */
/* @@opts: -x switchrate=100000000000000 */
/* @@status: 1 */
/* @@stderr: failed to set -x switchrate: 100000000000000 exceeds the maximum of 1d */
BEGIN { exit(0); }
