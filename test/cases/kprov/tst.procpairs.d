/*
 * Probes of one BTF tracepoint enabled together each keep their own
 * program: create fires for the new process and lwp-create for the new
 * thread, lwp-exit for the thread's exit and exit for the process's (they
 * once shared the first probe's prologue, so that lwp-create fired for
 * the process and lwp-exit at the process's exit).
 */
/* @@setup: gcc -O1 -pthread -o /tmp/sonde-forkthread forkthread.c */
/* @@opts: -q -c /tmp/sonde-forkthread */
proc:::create /pid == $target/ { printf("create: a process %d\n", args[0]->pr_pid != $target); }
proc:::lwp-create /pid == $target/ { printf("lwp-create: a thread %d\n", args[0]->pr_lwpid != args[1]->pr_pid); }
proc:::lwp-exit /pid == $target/ { printf("lwp-exit: a thread %d\n", tid != pid); }
proc:::exit /pid == $target/ { printf("exit: the process %d\n", tid == pid); }
