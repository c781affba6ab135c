/* copyin() returns scratch memory: a cast of it dereferences (and
   subscripts) in place and reads the bytes copied in. The workload opens
   its arguments with flags 0 (the dynamic linker's opens have O_CLOEXEC). */
/* @@setup: gcc -O1 -o /tmp/sonde-xlate xl.c */
/* @@opts: -q -c '/tmp/sonde-xlate /dev/null /etc/hostname' */
syscall::openat:entry /pid == $target && arg2 == 0/ {
	this->p = (uint8_t *)copyin(arg1, 4);
	printf("%c%c%c%c %x %x %d\n", this->p[0], this->p[1], this->p[2], this->p[3],
	    *(uint32_t *)copyin(arg1, 4), *(uint16_t *)this->p, *(int8_t *)copyin(arg1 + 1, 1));
}
