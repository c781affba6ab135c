/* @@opts: -q */
self int y;
BEGIN { self->y = 4; self->y *= 2; printf("%d\n", self->y); exit(0); }
