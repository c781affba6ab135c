/* a library may only declare */
inline int X = 1;
BEGIN { trace(X); }
