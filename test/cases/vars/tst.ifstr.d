/* @@opts: -q */
BEGIN { if (execname == "sonde") printf("yes\n"); if (probename != "BEGIN") printf("no\n"); exit(0); }
