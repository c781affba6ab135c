/* copyinto()'s destination must be scratch memory (from alloca() or
   copyin()) with room for the copy: anything else is an invalid address,
   as dtrace_inscratch() decides in DTrace. */
/* @@setup: gcc -O1 -o /tmp/sonde-inet inet.c */
/* @@opts: -q -c '/tmp/sonde-inet 1.2.3.4' */
/* @@stderr: invalid address */
syscall::write:entry /pid == $target/ { copyinto(arg1, 4, (void *)arg1); printf("not reached\n"); }
syscall::write:entry /pid == $target/ { printf("next clause\n"); }
