/* @@stderr: failed to resolve LATER: unknown variable name */
/* an inline's value is compiled where the inline is declared: it may use
   only what is declared before it */
inline int FIRST = LATER + 1;
inline int LATER = 1;
BEGIN { trace(FIRST); }
