/* -b is -x bufsize: its value is checked as bufsize's. */
/* @@opts: -b 2g */
/* @@status: 1 */
/* @@stderr: failed to set -x bufsize: 2g exceeds the maximum of 1g */
BEGIN { exit(0); }
