BEGIN { self->a[1] = 1; trace(self->a); }
