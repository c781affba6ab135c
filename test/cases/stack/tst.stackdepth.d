/*
 * stackdepth is the number of frames stack() prints and caller the second
 * of them: at syscall::getppid:entry the system call's entry path, without
 * the tracing machinery's frames (the BPF program, bpf_trace_run2 and the
 * tracepoint's glue come first in the kernel's stack and are not counted).
 * A pid probe fires in user context, where there is no kernel stack: both
 * are 0 there.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc ../syscall/sysc.c */
/* @@opts: -q -x stackframes=127 -c '/tmp/sonde-sysc 1' */
syscall::getppid:entry /pid == $target/ { printf("%d %a\n", stackdepth, caller); stack(); }
pid$target:libc.so.6:syscall:entry { printf("pid: %d %d\n", stackdepth, caller); }
