/* An integer member is not assigned a string. */
struct a { int x; } va;
BEGIN { va.x = "one"; exit(0); }
