pid: 0 0
3 vmlinux`do_syscall_64\+0x[0-9a-f]+

 +vmlinux`syscall_trace_enter\+0x[0-9a-f]+
 +vmlinux`do_syscall_64\+0x[0-9a-f]+
 +vmlinux`entry_SYSCALL_64_after_hwframe\+0x[0-9a-f]+

