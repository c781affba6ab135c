/* copyoutstr() writes into a process: destructive, refused without -w. */
syscall::write:entry { copyoutstr("x", arg1, 2); }
