/* A cast is to a scalar type. */
struct s { int x; };
BEGIN { trace((struct s)arg0); exit(0); }
