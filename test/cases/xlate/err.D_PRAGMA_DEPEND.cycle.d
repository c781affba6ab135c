/* Libraries that depend on each other. */
/* @@opts: -L badlib3 */
/* @@stderr: badlib3/b.d:2:1: [D_PRAGMA_DEPEND] cyclic dependency on library a.d */
BEGIN { exit(0); }
