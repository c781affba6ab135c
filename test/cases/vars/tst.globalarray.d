/* Global arrays declared at top level (Pointers and Arrays, "Array
   Declarations and Storage"): elements of their declared size (char
   wraps at 256, long keeps 64 bits), rows of a two-dimensional array, a
   variable index, ++ and += on elements, and values kept across probes. */
#pragma D option quiet
int a[10];
char c[4];
long m[2][3];
int *p[2];
BEGIN
{
	a[3] = 5; a[0] = -1; a[9] = a[3] + a[0];
	i = 2; a[i] = 7; a[i]++; a[i] += 10; ++a[1];
	c[1] = 300; c[2] = -1;
	m[1][2] = 0x123456789; m[0][1] = m[1][2] * 2; j = 1; k = 0; m[j][k] = 42;
	p[1] = (int *)0x1000;
	printf("%d %d %d %d %d %d\n", a[3], a[0], a[9], a[i], a[1], a[4]);
	printf("%d %d %d %d\n", c[1], c[2], c[3], sizeof(c));
	printf("%d %d %d %d\n", m[1][2], m[0][1], m[1][0], sizeof(m));
	printf("%p %d\n", p[1], sizeof(a));
}
tick-1ms /n++ < 3/ { a[n] += n; }
tick-1ms /n == 3/ { printf("%d %d %d %d\n", a[1], a[2], a[3], a[4]); exit(0); }
