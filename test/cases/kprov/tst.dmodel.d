/* curpsinfo->pr_dmodel tells a 32-bit process (PR_MODEL_ILP32) from a 64-bit one, for translators that read its structures. */
/* @@setup: as --32 -o /tmp/sonde-sleep32.o sleep32.s && ld -m elf_i386 -o /tmp/sonde-sleep32 /tmp/sonde-sleep32.o */
/* @@opts: -q -c /tmp/sonde-sleep32 */
BEGIN { printf("sonde %s\n", curpsinfo->pr_dmodel == PR_MODEL_LP64 ? "LP64" : "ILP32"); }
sched:::off-cpu /pid == $target && curpsinfo->pr_dmodel == PR_MODEL_ILP32/ { @ilp32 = count(); }
END { printa("target ILP32 off-cpu %@d\n", @ilp32); }
