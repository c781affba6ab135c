/* @@opts: -q -c 'sh -c "exit 3"' */
syscall::exit_group:entry /pid == $target/ { printf("exit %d\n", arg0); }
