/* @@opts: -q */
/* @@stderr: invalid address */
/* Stores through a pointer to scratch memory (alloca(); the guide:
   "alloca ... returns a pointer to scratch memory"): members, bit-fields,
   *p and p[i], ++ and op=; the struct built there is copied whole into a
   variable. A store to kernel memory faults with an invalid address (its
   clause's output is dropped) and leaves the memory alone. */
struct foo {
	int a;
	long b;
	unsigned f : 3;
} st;

BEGIN
{
	this->p = (struct foo *)alloca(sizeof (struct foo));
	this->p->a = 5;
	this->p->b = -7;
	this->p->f = 9;
	this->p->a++;
	st = *this->p;
	printf("%d %d %d %d\n", st.a, st.b, st.f, this->p->a);
	this->q = (int *)alloca(16);
	this->q[2] = 42;
	*this->q = 7;
	this->q[1] += 3;
	printf("%d %d %d %d\n", this->q[0], this->q[1], this->q[2], this->q[3]);
}

BEGIN
{
	this->k = (int *)&curthread->tgid;
	*this->k = 0;
	printf("not reached\n");
}

BEGIN
{
	printf("%d\n", curthread->tgid == pid);
}

ERROR
{
	printf("fault %d\n", arg4);
}

BEGIN
{
	exit(0);
}
