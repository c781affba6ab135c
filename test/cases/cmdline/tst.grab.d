/* -p grabs a running process; dtrace exits when it exits. */
/* @@spawn: sleep 2 */
/* @@opts: -q -p {spawn} */
syscall::exit_group:entry /pid == $target/ { printf("exit %d\n", arg0); }
