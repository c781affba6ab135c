/* @@opts: -q -C */
#define MSG "cpp works"
#define TWICE(x) ((x) * 2)
BEGIN { printf("%s %d\n", MSG, TWICE(21)); exit(0); }
