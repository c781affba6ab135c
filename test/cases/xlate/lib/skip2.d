/* skip2.d: depends on skip.d, so it is skipped with it. */
#pragma D depends_on library skip.d
inline int LIBVAL = 3;
