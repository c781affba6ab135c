/* copyinto() copies user memory into scratch space from alloca(). */
/* @@setup: gcc -O1 -o /tmp/sonde-inet inet.c */
/* @@opts: -q -c '/tmp/sonde-inet 1.2.3.4 10.20.30.40' */
syscall::write:entry /pid == $target/
{
	this->p = alloca(8);
	copyinto(arg1, 4, this->p);
	printf("%s %x\n", inet_ntoa((ipaddr_t *)this->p), *(uint32_t *)this->p);
}
