/* 18014398509481985k wrapped around to 1k and was taken as strsize=1024. */
/* @@opts: -x strsize=18014398509481985k */
/* @@status: 1 */
/* @@stderr: failed to set -x strsize: 18014398509481985k exceeds the maximum */
BEGIN { exit(0); }
