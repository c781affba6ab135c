
 *libc.so.6`(__)?clock_nanosleep[a-z_0-9]*\+0x[0-9a-f]+
 1[0-9]{9}

