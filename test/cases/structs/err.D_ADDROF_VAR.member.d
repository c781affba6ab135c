/* A D variable, a struct one included, has no address (& applies to
   memory). */
struct a { int x; } va;
BEGIN { trace(&va.x); exit(0); }
