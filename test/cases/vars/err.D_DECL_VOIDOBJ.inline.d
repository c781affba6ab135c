/* @@stderr: cannot declare void inline: NOTHING */
inline void NOTHING = 0;
BEGIN { exit(0); }
