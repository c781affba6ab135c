/* A size past 2^64 bytes hung sonde in an endless loop. */
/* @@opts: -x bufsize=8000000t */
/* @@status: 1 */
/* @@stderr: failed to set -x bufsize: 8000000t exceeds the maximum of 1g */
BEGIN { exit(0); }
