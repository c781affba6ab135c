/* arg0 is an int64_t: its key prints as %16lld. */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 status=none' */
syscall::write:entry /pid == $target/ { @[arg0] = count(); }
