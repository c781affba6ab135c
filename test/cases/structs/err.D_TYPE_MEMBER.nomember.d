/* A member the struct does not have. */
struct a { int x; } va;
BEGIN { va.y = 1; exit(0); }
