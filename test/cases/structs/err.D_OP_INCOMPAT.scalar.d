/* A struct variable is not assigned an integer. */
struct a { int x; } va;
BEGIN { va = 1; exit(0); }
