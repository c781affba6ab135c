/* An inline's value must suit its declared type, even when no clause
   uses the inline (dt_cook_inline). */
inline int i = "i am a string";
BEGIN { exit(0); }
