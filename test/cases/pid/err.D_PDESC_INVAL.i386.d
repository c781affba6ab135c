/*
 * The pid provider decodes x86-64 code: in an i386 object it would place
 * return probes inside instructions (here in f()'s immediate, changing
 * what f() returns) and read arguments from registers the caller never
 * set. It refuses such objects.
 */
/* @@setup: gcc -m32 -O1 -nostdlib -static -fno-pic -no-pie -o /tmp/sonde-i386 i386.c */
/* @@spawn: /tmp/sonde-i386 */
/* @@opts: -q -p {spawn} */
/* @@status: 1 */
/* @@stderr: not an x86-64 object (ELFCLASS32, EM_386) */
pid$target::f:return
{
	@ = count();
}

tick-1s
{
	exit(0);
}
