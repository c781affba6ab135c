/* @@stderr: self->ts has not yet been declared or assigned */
/* the return clause comes first: self->ts is not defined there yet (declare
   it with "self uint64_t ts;", or put the entry clause first) */
syscall::read:return /self->ts/ { @ns = sum(timestamp - self->ts); }
syscall::read:entry { self->ts = timestamp; }
