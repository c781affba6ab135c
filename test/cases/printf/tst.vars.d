/* @@opts: -q */
BEGIN { a = 7; s = "seven"; self->t = 8; this->u = 9; printf("%d %s %d %d\n", a, s, self->t, this->u); exit(0); }
