/* @@opts: -x aggsortpos=99999999999999999999 */
/* @@status: 1 */
/* @@stderr: failed to set -x aggsortpos: 99999999999999999999 is out of range: it must be between 0 and 1048576 */
BEGIN { exit(0); }
