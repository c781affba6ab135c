/* vtimestamp in sched:::on-cpu is the incoming thread's on-CPU time: what it was when that thread went off CPU (it has not run since), not the outgoing thread's. */
/* @@opts: -q -c 'sleep 0.3' */
sched:::off-cpu /pid == $target/ { self->v = vtimestamp; }
sched:::on-cpu /pid == $target && self->v/ { @same = min(vtimestamp == self->v); self->v = 0; }
END { printa("same %@d\n", @same); }
