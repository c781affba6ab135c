/* An array member is assigned element by element. */
struct a { int x[4]; } va;
BEGIN { va.x = 1; exit(0); }
