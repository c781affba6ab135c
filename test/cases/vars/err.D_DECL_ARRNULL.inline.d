/* @@stderr: inline declaration requires array tuple signature: TABLE */
inline int TABLE[] = 1;
BEGIN { exit(0); }
