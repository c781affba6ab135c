/* A dimension past UINT_MAX is too big (dt_decl_array). */
char a[4294967296];
BEGIN { exit(0); }
