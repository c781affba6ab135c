/* @@opts: -q */
BEGIN { exit(0); } END { printf("end\n"); }
