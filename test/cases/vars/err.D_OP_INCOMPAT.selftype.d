BEGIN { self->x = "str"; self->x = 3; }
