/* @@opts: -q -c 'head -c0 /etc/hostname' */
syscall::openat:entry /pid == $target && basename(copyinstr(arg1)) == "hostname"/ { printf("%s\n", dirname(copyinstr(arg1))); }
