/* hidden by lib/base.d, which comes first in the search path */
inline int LIBVAL = 4;
