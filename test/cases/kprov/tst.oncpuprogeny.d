/* progenyof() in sched:::on-cpu asks of the incoming thread (the one the probe fires for), not of the thread going off CPU: only the target's shell and its sleeps are counted. */
/* @@opts: -q -x aggsortkey -c 'sh -c "sleep 0.2; sleep 0.2"' */
sched:::on-cpu /progenyof($target)/ { @[execname] = count(); }
END { printa("%s\n", @); }
