/* Two translators between the same types. */
struct out { int x; };
translator struct out < int i > { x = i; };
translator struct out < int j > { x = j + 1; };
BEGIN { exit(0); }
