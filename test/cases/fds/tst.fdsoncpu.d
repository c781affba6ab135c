/*
 * fds[] in sched:::on-cpu is the incoming thread's: every time the
 * target (a sleep writing to a known file) comes on CPU, its fds[1] is
 * that file, or "<none>" once exiting has closed its descriptors (read
 * from the outgoing thread, it was another process's).
 */
/* @@opts: -q -c "/bin/sh -c 'exec sleep 0.3 > /tmp/sonde-fdsoncpu.txt'" */
/* @@args: /tmp/sonde-fdsoncpu.txt */
sched:::on-cpu
/pid == $target && execname == "sleep"/
{
	n++;
	same += fds[1].fi_pathname == $$1;
	closed += fds[1].fi_pathname == "<none>";
}

END
{
	printf("on-cpu>0 %d, fds[1] the target's file %d, else closed %d\n", n > 0,
	    same > 0, same + closed == n);
}
