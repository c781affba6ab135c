/* @@opts: -q */
BEGIN { printf("%s|%s\n", strchr("a/b/c", '/'), strrchr("a/b/c", '/')); exit(0); }
