/* @@stderr: self->start has not yet been declared or assigned */
/* a thread-local variable is read before any clause assigns it */
BEGIN { trace(timestamp - self->start); }
