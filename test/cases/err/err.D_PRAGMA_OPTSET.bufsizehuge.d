/* The pragma path takes the same limits as -x. */
/* @@stderr: failed to set option 'bufsize': 8000000t exceeds the maximum of 1g */
#pragma D option bufsize=8000000t
BEGIN { exit(0); }
