/* raise() in sched:::on-cpu would signal the thread going off CPU (the kernel runs the probe in it), not the incoming one D names: refused. */
/* @@opts: -w */
/* @@status: 1 */
/* @@stderr: raise( ) is not supported here: this probe fires for another thread */
sched:::on-cpu /execname == "sonde-never-runs"/ { raise(SIGKILL); }
