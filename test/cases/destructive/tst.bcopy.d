/* @@opts: -q */
/* @@stderr: invalid address (0x4d2) in action #1 */
/* bcopy(src, dest, size) copies kernel memory into scratch memory the
   clause allocated (the guide: "the destination must be scratch memory
   ... alloca()"); a destination elsewhere faults with an invalid address,
   and that clause's output is dropped. */
BEGIN
{
	this->dst = (char *)alloca(16);
	bcopy((void *)&curthread->comm[0], this->dst, 16);
	printf("[%s] %d\n", stringof(this->dst), stringof(this->dst) == execname);
	this->n = (long *)alloca(8);
	bcopy((void *)&curthread->tgid, this->n, 4);
	printf("%d\n", *(int *)this->n == pid);
}

BEGIN
{
	bcopy(this->dst, (void *)1234, 4);
	printf("not reached\n");
}

ERROR
{
	printf("fault %d %x\n", arg4, arg5);
	exit(0);
}
