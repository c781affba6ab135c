/* @@opts: -q */
BEGIN { self->s = "thread"; } BEGIN { printf("%s\n", self->s); exit(0); }
