/* @@opts: -q */
BEGIN { s = "a"; } BEGIN /s == "a"/ { printf("a\n"); } BEGIN { exit(0); }
