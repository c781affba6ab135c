/* Members of a struct in user memory, read through a userland pointer:
   integers, a char array as a string and subscripted, a nested struct, a
   union, bit-fields, a pointer followed with copyinstr(), an array, and
   offsets (&p->m). The layout is gcc's on x86-64 (xl.c declares the same
   struct): sizeof 56, in at 20, big at 24, un at 36, path at 40. */
/* @@setup: gcc -O1 -o /tmp/sonde-xlate xl.c */
/* @@opts: -q -c '/tmp/sonde-xlate /dev/null' */
struct inner {
	uint16_t port;
	uint8_t flags;
};

struct rec {
	char tag;
	int32_t id;
	char name[12];
	struct inner in;
	uint64_t big;
	unsigned lo : 3, mid : 7;
	int neg : 5;
	union {
		uint32_t u;
		uint8_t b[4];
	} un;
	const char *path;
	int16_t arr[3];
};

syscall::write:entry /pid == $target && (int)arg0 == -1/ {
	this->r = (userland struct rec *)arg1;
	printf("%c %d %s %c %d %x\n", this->r->tag, this->r->id, this->r->name, this->r->name[4], this->r->in.port, this->r->in.flags);
	printf("%d %d %d %d %x %d\n", this->r->big, this->r->lo, this->r->mid, this->r->neg, this->r->un.u, this->r->un.b[2]);
	printf("%s %d %d %d\n", copyinstr((uintptr_t)this->r->path), this->r->arr[0], this->r->arr[1], this->r->arr[2]);
	printf("%d %d %d %d %d\n", sizeof(struct rec), (uintptr_t)&this->r->in - arg1, (uintptr_t)&this->r->un.b[3] - arg1,
	    offsetof(struct rec, path), (uintptr_t)&this->r->arr[2] - arg1);
	/* the same through copyin() into scratch memory, a kernel pointer */
	this->k = (struct rec *)copyin(arg1, sizeof(struct rec));
	printf("%s %d %d\n", this->k->name, this->k->arr[2], this->k->mid);
}
