/* needs a library that is nowhere on the search path */
#pragma D depends_on library nothere.d
inline int NEEDS = 1;
