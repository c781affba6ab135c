syscall::read:entry { @[stack(0)] = count(); }
