/* found through -x libdir */
inline int EXTRA = 42;
