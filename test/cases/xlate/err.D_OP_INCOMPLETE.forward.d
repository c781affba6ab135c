/* A struct declared but never defined has no members. */
struct s;
BEGIN { trace(((struct s *)arg0)->x); }
