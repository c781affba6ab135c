/* proc:::signal-send and signal-handle: kill -USR1 to a process that handles it. */
/* @@opts: -q -c 'sh -c "trap : USR1; kill -USR1 $$; true"' */
proc:::signal-send /pid == $target && args[2] == SIGUSR1/ { printf("send %d to %s, self: %d\n", args[2], args[1]->pr_fname, args[1]->pr_pid == pid); }
proc:::signal-handle /pid == $target && args[0] == SIGUSR1/ { printf("handle %d\n", args[0]); }
