/* @@opts: -q */
BEGIN { printf("%d %d %d\n", progenyof($pid), progenyof(1), progenyof(999999)); exit(0); }
