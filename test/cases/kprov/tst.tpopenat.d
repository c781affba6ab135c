/* A tracepoint's user pointer field read with copyinstr, and arg0 the first field (__syscall_nr). */
/* @@opts: -q -c 'grep -q . /etc/hostname' */
tracepoint:syscalls::sys_enter_openat /pid == $target && copyinstr(args->filename) == "/etc/hostname"/ { printf("%s %d\n", copyinstr(args->filename), arg0); }
