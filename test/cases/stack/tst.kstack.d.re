.*vmlinux`do_syscall_64.* 5
