/* @@opts: -q */
/* @@status: 7 */
BEGIN { exit(7); }
