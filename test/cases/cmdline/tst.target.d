/* @@opts: -q -c 'true' */
BEGIN { printf("%d\n", $target > 0); }
syscall::exit_group:entry /pid == $target/ { printf("exit %d\n", arg0); }
