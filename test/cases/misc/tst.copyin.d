/* @@opts: -q -c 'sh -c "printf hi > /dev/null"' */
syscall::write:entry /pid == $target/ { printf("%c%c %d\n", *(char *)copyin(arg1, 1), *(char *)copyin(arg1 + 1, 1), arg2); }
