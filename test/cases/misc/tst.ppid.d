/* @@opts: -q */
BEGIN { printf("%d\n", ppid == $ppid); exit(0); }
