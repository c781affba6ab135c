/* @@stderr: failed to set option 'strsize': 18014398509481985k exceeds the maximum */
#pragma D option strsize=18014398509481985k
BEGIN { exit(0); }
