/* @@opts: -q */
BEGIN { printf("%s %s %s\n", basename("/usr/lib/libc.so"), dirname("/usr/lib/libc.so"), dirname("file")); exit(0); }
