syscall::read:entry { x = args->foo; }
