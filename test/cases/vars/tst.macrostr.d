/* @@opts: -q */
/* @@args: foo 42 */
BEGIN { printf("%s %d %s %d\n", $$1, $2, $$2, $2 * 2); exit(0); }
