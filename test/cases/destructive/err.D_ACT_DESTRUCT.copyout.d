/* copyout() writes into a process: destructive, refused without -w. */
syscall::write:entry { copyout(copyin(arg1, 1), arg1, 1); }
