/* @@opts: -x dynvarsize=8000000t */
/* @@status: 1 */
/* @@stderr: failed to set -x dynvarsize: 8000000t exceeds the maximum of 1g */
BEGIN { a[1] = 1; exit(0); }
