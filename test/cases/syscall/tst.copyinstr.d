/* @@opts: -q -c 'head -c0 /etc/hostname' */
syscall::openat:entry /pid == $target && copyinstr(arg1) == "/etc/hostname"/ { printf("%s\n", copyinstr(arg1)); }
