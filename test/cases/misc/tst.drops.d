/* @@opts: -q -o /dev/null -x bufsize=4k -x switchrate=1hz -c 'dd if=/dev/zero of=/dev/null bs=1 count=20000 status=none' */
/* @@stderr: drops */
syscall::write:entry /pid == $target/ { printf("%d\n", arg2); }
