/* A member the struct does not have. */
/* @@stderr: nope is not a member of struct s */
struct s { int x; };
BEGIN { trace(((struct s *)arg0)->nope); }
