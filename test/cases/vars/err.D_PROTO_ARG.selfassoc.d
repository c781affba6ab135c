BEGIN { self->a[1, "x"] = 1; } END { self->a[1, 2] = 2; }
