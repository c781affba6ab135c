/* @@opts: -l */
syscall::read:entry, syscall::write:return
