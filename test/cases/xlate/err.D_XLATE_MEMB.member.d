/* A translator may only define members of its output type. */
struct out { int x; };
translator struct out < int i > { x = i; z = i; };
BEGIN { exit(0); }
