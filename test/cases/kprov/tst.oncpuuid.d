/* uid and gid in sched:::on-cpu are the incoming thread's (the target, running as nobody after setpriv), not those of the thread going off CPU. */
/* @@opts: -q -c 'setpriv --reuid=65534 --regid=65534 --clear-groups sleep 0.3' */
sched:::on-cpu /pid == $target && execname == "sleep"/ { @[uid, gid] = count(); }
END { printa("uid %d gid %d\n", @); }
