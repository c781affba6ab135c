/* self-> associative arrays: thread-local, keyed by any tuple; an element
   never assigned reads as 0 or ""; assigning 0 deletes it. */
/* @@opts: -q */
BEGIN
{
	self->a[1] = 10;
	self->a[2] = 20;
	self->b["x", 3] = 30;
	self->s[probename] = "begin";
	self->a[1]++;
	self->a[2] += 5;
	printf("%d %d %d %d %d\n", self->a[1], self->a[2], self->a[3], self->b["x", 3], self->b["x", 4]);
	printf("[%s] [%s] [%s]\n", self->s["BEGIN"], self->s["END"], self->s[probename]);
	self->a[1] = 0;
	printf("%d %d\n", self->a[1], self->a[2]);
	self->a[1] = self->a[2] * 2;
	printf("%d\n", self->a[1]);
}

BEGIN
/self->a[2] == 25/
{
	printf("%s %d\n", self->s["BEGIN"], self->b["x", 3]);
	exit(0);
}
