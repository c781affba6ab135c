/* An i386 process's system calls are skipped, not misnamed: its nanosleep is number 162, which is sync on x86-64. */
/* @@setup: as --32 -o /tmp/sonde-sleep32.o ../kprov/sleep32.s && ld -m elf_i386 -o /tmp/sonde-sleep32 /tmp/sonde-sleep32.o */
/* @@opts: -q -c /tmp/sonde-sleep32 */
syscall::sync:entry, syscall::nanosleep:entry, syscall::clock_nanosleep:entry, syscall::sync:return /pid == $target/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); printf("done\n"); }
