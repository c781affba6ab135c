tracepoint:sched::sched_switch { x = args->nosuch; }
