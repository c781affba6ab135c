/* A struct is assigned only a value of the same struct type. */
struct a { int x; } va;
struct b { int x; } vb;
BEGIN { va = vb; exit(0); }
