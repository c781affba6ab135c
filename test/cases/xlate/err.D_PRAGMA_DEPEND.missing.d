/* A library's dependency missing from the search path is an error at its
   pragma. */
/* @@opts: -L badlib1 */
/* @@stderr: badlib1/needs.d:2:1: [D_PRAGMA_DEPEND] failed to find dependency in libpath: nothere.d */
BEGIN { exit(0); }
