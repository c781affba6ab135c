/* uid_t is 4 bytes: the key prints as %8d. The suite runs as root. */
/* @@opts: -q */
BEGIN { @[uid] = count(); exit(0); }
