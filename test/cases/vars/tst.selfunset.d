/* A thread-local variable that was never assigned reads as 0. */
/* @@opts: -q */
BEGIN /0/ { self->v = 1; } BEGIN { printf("%d\n", self->v); exit(0); }
