/* @@opts: -q */
/* @@status: 3 */
BEGIN { exit(3); }
