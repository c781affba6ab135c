/* @@opts: -q */
inline int NUM = 21;
BEGIN { printf("%d\n", NUM * 2); exit(0); }
