/* A syntax error in a library names the library's file and line. */
/* @@opts: -L badlib4 */
/* @@stderr: badlib4/bad.d:3:1: [D_SYNTAX] syntax error near "}" */
BEGIN { exit(0); }
