/* stack() shows kernel frames: the system call path of getppid(2), folded. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc ../syscall/sysc.c */
/* @@opts: -q --folded -c '/tmp/sonde-sysc 5' */
syscall::getppid:entry /pid == $target/ { @[stack()] = count(); }
