/* @@opts: -q */
BEGIN { printf("%d %d %d %d %x\n", !0, !5, !!5, ~0, ~0xf0); exit(0); }
