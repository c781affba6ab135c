/* A struct defined twice. */
struct s { int x; };
struct s { long y; };
BEGIN { exit(0); }
