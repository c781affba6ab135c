/* curpsinfo and curlwpsinfo describe the current process and thread; pr_psargs is the command line with its arguments separated by spaces, as DTrace shows it. */
/* @@opts: -q -c 'sh psargs.sh' */
proc:::exec-success /ppid == $target/
{
	printf("[%s] %d %s\n", curpsinfo->pr_psargs, strlen(curpsinfo->pr_psargs), curpsinfo->pr_fname);
	printf("%d %d %d %d %d %d %d\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == $target,
	    curpsinfo->pr_uid == uid, curpsinfo->pr_gid == gid, curpsinfo->pr_nlwp,
	    curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_onpro == cpu);
}
sched:::on-cpu /curpsinfo->pr_pid == $target/ { @on[curpsinfo->pr_fname, curlwpsinfo->pr_lwpid == $target] = count(); }
END { printa("on-cpu %s %d\n", @on); }
