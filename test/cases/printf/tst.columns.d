/* @@opts: -q */
BEGIN { printf("%-10s|%5d|%-5d|%s\n", "name", 12, 34, "end"); exit(0); }
