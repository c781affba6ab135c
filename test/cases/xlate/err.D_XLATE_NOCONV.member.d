/* The translator leaves the member out. */
/* @@stderr: translator does not define conversion for member: y */
struct out { int x; int y; };
translator struct out < int i > { x = i; };
BEGIN { trace(xlate<struct out *>(1)->y); }
