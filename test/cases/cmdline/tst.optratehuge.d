/* An interval past 2^63 ns wrapped to a negative poll timeout. */
/* @@opts: -x switchrate=99999999999s */
/* @@status: 1 */
/* @@stderr: failed to set -x switchrate: 99999999999s exceeds the maximum of 1d */
BEGIN { exit(0); }
