/* @@opts: -q */
/* Structs assigned whole are copied by value (the guide's "Structs": a
   struct is a type for any D variable): a global, self-> and this->
   variables, an associative array's values, a nested member, memory a
   pointer points to (*p), a struct read through a kernel pointer
   (*curthread), and a translation (xlate<struct ids>). A later change to the source
   does not change the copy. */
struct pt {
	int x;
	int y;
};
struct seg {
	struct pt from;
	struct pt to;
	char tag[4];
};
struct seg s, t;
struct pt pts[int];
self struct seg ss;

struct ids {
	int pid;
	int ppid;
};
translator struct ids < struct task_struct *T > {
	pid = T->tgid;
	ppid = T->real_parent->tgid;
};

BEGIN
{
	s.from.x = 1; s.from.y = 2; s.to.x = 3; s.to.y = 4; s.tag = "ab";
	t = s;
	s.from.x = 100;
	printf("t %d %d %d %d %s\n", t.from.x, t.from.y, t.to.x, t.to.y, t.tag);
	pts[1] = t.to;
	pts[2] = s.from;
	pts[1].y++;
	printf("pts %d %d %d %d %d\n", pts[1].x, pts[1].y, pts[2].x, pts[2].y, pts[3].x);
	self->ss = s;
	self->ss.to = pts[1];
	this->c = self->ss;
	printf("this %d %d %d %d %s\n", this->c.from.x, this->c.from.y, this->c.to.x, this->c.to.y, this->c.tag);
	u = pts[2];
	printf("u %d %d %d\n", u.x, u.y, sizeof(u));
}

BEGIN
{
	/* *p from the memory of a kernel struct: the copy equals the
	   members read in place */
	self->task = *curthread;
	printf("task %d %d %d\n", self->task.tgid == pid, self->task.tgid == curthread->tgid,
	    self->task.real_parent == curthread->real_parent);
	this->ids = xlate<struct ids>(curthread);
	printf("ids %d %d\n", this->ids.pid == pid, this->ids.ppid == ppid);
	exit(0);
}
