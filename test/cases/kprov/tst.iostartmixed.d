/* A clause of io:::start (the thread that made the request) and io:::done (the thread that runs the completion) has no one thread for pid: refused. */
/* @@status: 1 */
/* @@stderr: the probes of this clause fire for different threads */
io:::start, io:::done { @[pid] = count(); }
