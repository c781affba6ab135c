/* @@opts: -q -C -X s -x stdc=s */
/*
 * -X (-x stdc) selects cpp's ISO C mode: s is K&R C, where cpp defines no
 * __STDC__; a, t and c define it.
 */
#ifdef __STDC__
BEGIN { printf("__STDC__ %d\n", __STDC__); exit(0); }
#else
BEGIN { printf("K&R: no __STDC__\n"); exit(0); }
#endif
