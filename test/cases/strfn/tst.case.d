/* @@opts: -q */
BEGIN { printf("%s %s\n", toupper("MiXed"), tolower("MiXed")); exit(0); }
