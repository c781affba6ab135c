/* @@opts: -q */
BEGIN { t = timestamp; } BEGIN { printf("%d\n", timestamp >= t); exit(0); }
