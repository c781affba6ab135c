/* A translator member must have its member's type. */
/* @@stderr: translator member x definition uses incompatible types: "int" = "string" */
struct out { int x; };
translator struct out < int i > { x = "one"; };
BEGIN { exit(0); }
