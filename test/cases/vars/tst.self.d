/* @@opts: -q */
BEGIN { self->x = 9; } BEGIN { printf("%d\n", self->x); self->x = 0; exit(0); }
