/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=3 count=5 status=none' */
/* The guide's rwinfo.d ("Structs"): one associative array whose values are
   a struct, its members assigned one by one (the element is created on
   first use), incremented, and compared in a predicate. dd copies 5 blocks
   of 3 bytes: 5 reads and 5 writes of 3 bytes each. */
struct callinfo {
	uint64_t ts;      /* timestamp of last syscall entry */
	uint64_t elapsed; /* total elapsed time in nanoseconds */
	uint64_t calls;   /* number of calls made */
	size_t maxbytes;  /* maximum byte count argument */
};

struct callinfo i[string]; /* declare i as an associative array */

syscall::read:entry, syscall::write:entry
/pid == $target && arg2 == 3/
{
	i[probefunc].ts = timestamp;
	i[probefunc].calls++;
	i[probefunc].maxbytes = arg2 > i[probefunc].maxbytes ?
	    arg2 : i[probefunc].maxbytes;
}

syscall::read:return, syscall::write:return
/i[probefunc].ts != 0 && pid == $target/
{
	i[probefunc].elapsed += timestamp - i[probefunc].ts;
	i[probefunc].ts = 0;
}

END
{
	printf("        calls  max bytes  elapsed>0\n");
	printf("read    %5d  %9d  %d\n", i["read"].calls, i["read"].maxbytes, i["read"].elapsed > 0);
	printf("write   %5d  %9d  %d\n", i["write"].calls, i["write"].maxbytes, i["write"].elapsed > 0);
	printf("open    %5d  %9d  %d\n", i["open"].calls, i["open"].maxbytes, i["open"].ts);
}
