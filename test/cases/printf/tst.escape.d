/* @@opts: -q */
BEGIN { printf("tab\there\n\\back\n"); exit(0); }
