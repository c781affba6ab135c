/* @@opts: -lv */
syscall::openat:entry
