/* The stackframes and ustackframes options set the depth of stack() and ustack() without one; the tracer's own frames do not count. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc ../syscall/sysc.c */
/* @@opts: -q -x ustackframes=1 -c '/tmp/sonde-sysc 3' */
#pragma D option stackframes=2
syscall::getppid:entry /pid == $target/ { @k[stack()] = count(); @u[ustack()] = count(); }
END { printa("%k%@d\n", @k); printa("%k%@d\n", @u); }
