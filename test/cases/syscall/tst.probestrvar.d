/*
 * A variable assigned probename or probefunc holds the text: read in
 * another clause (another probe), it is still "entry", not the name of the
 * probe reading it; as a key, in a comparison and in strjoin().
 */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 7' */
syscall::getppid:entry /pid == $target/ { self->n = probename; self->f = probefunc; self->in = 1; }
syscall::getppid:return /self->in/
{
	@k[self->n, self->f] = count();
	@eq[self->n == "entry", self->f == "getppid", self->n == probename] = count();
	@j[strjoin(self->n, "!")] = count();
	g = self->n;
	self->in = 0;
}
syscall::exit_group:entry /pid == $target/
{
	printa("%s %s %@d\n", @k);
	printa("%d %d %d %@d\n", @eq);
	printa("%s %@d\n", @j);
	printf("%s %s\n", g, self->f);
}
