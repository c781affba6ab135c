/* @@stderr: cannot have void object: nothing */
void nothing;
BEGIN { exit(0); }
