/*
 * Subscripts out of an array's bounds (a member of a struct copied in) or
 * out of scratch memory (a pointer to it) fault with an invalid address,
 * as in DTrace, instead of reading other memory: v[1000] read 0, and
 * v[-100000] read kernel per-CPU memory most of the time. (A constant
 * index outside an array is a compile-time error, D_ARR_BOUNDS.)
 */
/* @@opts: -q -c 'sh -c "printf abcdefghijklmnop > /dev/null"' */
/* @@stderr: (ID 6: syscall::write:entry): invalid address (0x */
/* @@stderr: ) in action #2 at tst.indexbounds.d:27:25 */
/* @@stderr: ) in action #2 at tst.indexbounds.d:32:28 */
/* @@stderr: ) in action #2 at tst.indexbounds.d:37:22 */
/* @@stderr: ) in action #1 at tst.indexbounds.d:41:25 */
/* @@stderr: ) in action #1 at tst.indexbounds.d:45:28 */
struct s {
	int v[4];
};

syscall::write:entry /pid == $target/
{
	this->t = (struct s *)copyin(arg1, sizeof (struct s));
	printf("%d %d %d %d\n", this->t->v[0], this->t->v[3], ((int *)this->t)[3], (uint64_t)&this->t->v[3] - (uint64_t)this->t);
}
syscall::write:entry /pid == $target/
{
	this->i = 1000;
	printf("v[1000] %d\n", this->t->v[this->i]);
}
syscall::write:entry /pid == $target/
{
	this->i = -100000;
	printf("v[-100000] %d\n", this->t->v[this->i]);
}
syscall::write:entry /pid == $target/
{
	this->i = 4;
	printf("v[4] %d\n", this->t->v[this->i]);
}
syscall::write:entry /pid == $target/
{
	printf("p[1000] %d\n", ((int *)this->t)[1000]);
}
syscall::write:entry /pid == $target/
{
	printf("p[-100000] %d\n", ((int *)this->t)[-100000]);
}
syscall::write:entry /pid == $target/
{
	printf("after\n");
}
