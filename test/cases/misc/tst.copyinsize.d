/* @@opts: -q -c 'dd if=/etc/passwd of=/dev/null bs=4 count=1 status=none' */
/* copyin(), copyinstr() and alloca() with sizes known only when the code
   runs (the guide: "copyin(uintptr_t addr, size_t size)", "copyinstr(
   uintptr_t addr [, size_t maxlength])", "alloca(size_t size)"). dd
   writes the first 4 bytes of /etc/passwd, "root". A size beyond the room
   sonde keeps (2048 bytes) faults with DTRACEFLT_NOSCRATCH (5), as DTrace
   faults beyond its scratch space, and its clause's output is dropped. */
/* @@stderr: out of scratch space in action #1 */
syscall::write:entry
/pid == $target/
{
	printf("[%s] [%s] [%s] %d\n", stringof(copyin(arg1, arg2)), copyinstr(arg1, arg2 - 1),
	    copyinstr(arg1, arg2), arg2);
	this->b = (char *)copyin(arg1, arg2);
	printf("%c%c%c%c\n", this->b[0], this->b[1], this->b[2], this->b[3]);
	this->p = (char *)alloca(arg2 + 1);
	copyinto(arg1, 4, this->p);
	printf("[%s]\n", stringof(this->p));
}

syscall::write:entry
/pid == $target/
{
	this->big = copyin(arg1, arg2 * 1000);
	printf("not reached\n");
}

ERROR
{
	printf("fault %d %d\n", arg4, arg5);
}
