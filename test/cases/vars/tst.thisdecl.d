/* @@opts: -q */
this int x;
this string s;
BEGIN { this->x = 3; this->s = "str"; printf("%d %s\n", this->x + 1, this->s); exit(0); }
