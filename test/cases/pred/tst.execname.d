/* @@opts: -q */
BEGIN /execname == "sonde"/ { printf("me\n"); } BEGIN /execname != "sonde"/ { printf("other\n"); } BEGIN { exit(0); }
