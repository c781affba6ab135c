
 +vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+
 +vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+

 +vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+
 +vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+

 +sonde`.+
 +sonde`.+

