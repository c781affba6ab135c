/* tracepoint:sched::sched_switch with its fields as args->: the outgoing comm of the traced sleep. */
/* @@opts: -q -c 'sleep 0.2' */
tracepoint:sched::sched_switch /args->prev_pid == $target/ { @[args->prev_comm] = count(); }
END { printa("%s\n", @); }
