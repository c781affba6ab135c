/*
 * C function declarators: a prototype at the top level declares an extern
 * (as DTrace takes it, dt_decl.c), "void" or nothing for no parameters, a
 * final "..."; a pointer to a function is a pointer, in a variable, a
 * typedef, a struct member or a cast.
 */
/* @@opts: -q */
extern int kfunc(int, const char *);
int kfunc2(void);
int kprintf(const char *fmt, ...);
typedef void (*handler_t)(int);
struct ops {
	int (*open)(const char *, int);
	long count;
};
handler_t h;
int (*cmp)(const void *, const void *);

BEGIN
{
	this->p = (handler_t)0;
	printf("%d %d %d %d %d\n", sizeof (handler_t), sizeof (cmp), sizeof (struct ops),
	    offsetof(struct ops, count), h == this->p);
	exit(0);
}
