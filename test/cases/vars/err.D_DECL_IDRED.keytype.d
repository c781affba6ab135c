/* @@stderr: key #1 of type string */
/* an associative array keeps the key types it was declared with */
int sizes[int];
int sizes[string];
BEGIN { exit(0); }
