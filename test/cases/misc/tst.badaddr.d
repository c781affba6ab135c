/* @@opts: -q */
/* @@stderr: invalid address (0x0) in action #1 */
BEGIN { printf("%s\n", copyinstr(0)); } BEGIN { printf("after\n"); exit(0); }
