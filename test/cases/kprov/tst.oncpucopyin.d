/* copyinstr() in sched:::on-cpu would read the memory of the thread going off CPU: refused, not a wrong string. */
/* @@status: 1 */
/* @@stderr: copyinstr( ) is not supported here: this probe fires for another thread */
sched:::on-cpu /execname == "sonde-never-runs"/ { trace(copyinstr(arg0)); }
