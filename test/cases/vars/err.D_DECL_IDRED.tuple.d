/* @@stderr: tuple length 2 */
int sizes[int];
int sizes[int, int];
BEGIN { exit(0); }
