/* A variable of a struct type only declared forward has no storage. */
struct nosuch;
struct nosuch v;
BEGIN { exit(0); }
