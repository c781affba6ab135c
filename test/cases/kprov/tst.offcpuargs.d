/* off-cpu's args[1] is the psinfo_t of the thread that runs next; it never is the one leaving. */
/* @@opts: -q -c 'sleep 0.3' */
sched:::off-cpu /pid == $target/ { @[args[1]->pr_pid == pid] = count(); }
END { printa("next is self: %d\n", @); }
