syscall::write:entry { x = copyinto(arg1, 4, alloca(4)); }
