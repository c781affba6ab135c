/* @@opts: -q -c 'cat /etc/hostname' */
syscall::openat:entry /pid == $target && copyinstr(arg1) == "/etc/hostname"/ { printf("%s\n", copyinstr(arg1)); }
