/* A probe clause in a library. */
/* @@opts: -L badlib2 */
/* @@stderr: badlib2/clause.d:3:1 */
BEGIN { exit(0); }
