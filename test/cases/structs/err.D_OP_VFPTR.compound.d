/* A whole struct takes = only. */
struct a { int x; } va, vb;
BEGIN { va += vb; exit(0); }
