
vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+
vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+
3

libc\.so\.6`[a-z_0-9]+\+0x[0-9a-f]+
3

