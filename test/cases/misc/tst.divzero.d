/* @@opts: -q */
/* @@stderr: divide-by-zero in action #2 */
BEGIN { x = 0; printf("%d\n", 1 / x); } BEGIN { printf("after\n"); exit(0); }
