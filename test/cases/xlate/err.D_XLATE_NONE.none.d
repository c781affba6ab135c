/* No translator to the type from the input's. */
struct out { int x; };
translator struct out < string s > { x = strlen(s); };
BEGIN { trace(xlate<struct out>(1).x); }
