/* @@stderr: cannot apply stringof to a value of type */
/* stringof converts scalars, pointers and strings: not a whole struct */
struct pair { int a; int b; } p;
BEGIN { trace(stringof(p)); }
