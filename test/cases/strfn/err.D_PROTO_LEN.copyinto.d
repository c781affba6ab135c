syscall::write:entry { copyinto(arg1, 4); }
