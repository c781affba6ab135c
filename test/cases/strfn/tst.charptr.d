/* @@opts: -q -c 'head -c0 /etc/hostname' */
/* The string subroutines take a char * as the string it points to (their
   prototypes in the guide are const char *): kernel memory for a kernel
   pointer, the process's memory for a userland one;
   compared with a string, a char * is compared as the string. */
BEGIN
{
	this->p = (char *)&curthread->comm[0];
	printf("[%s] %d %d [%s] [%s]\n", strstr(this->p, "on"), index(this->p, "n"), strlen(this->p),
	    substr(this->p, 1), strjoin(this->p, "!"));
	printf("%d %d %d %d\n", this->p == execname, "sonde" != this->p, this->p < "zzz", this->p == "sondex");
}

syscall::openat:entry
/pid == $target && index((userland char *)arg1, "host") >= 0/
{
	this->u = (userland char *)arg1;
	printf("[%s] %d [%s] [%s]\n", strstr(this->u, "host"), strlen(this->u), basename(this->u), dirname(this->u));
}
