/* @@opts: -q */
/* A struct traced whole is recorded as its bytes and printed as DTrace's
   dt_print_datum prints a datum by its size alone: a struct of 8 bytes as
   a 64-bit integer, one whose bytes look like a string as that string,
   others as a hex dump. Structs are aggregation keys and associative
   array keys by their bytes too. */
struct s3 { int a; int b; int c; } x;
struct s2 { int a; int b; } y;
struct nm { char n[12]; } z;

BEGIN
{
	x.a = 0x1234;
	x.c = -1;
	y.a = 1;
	y.b = 2;
	z.n = "hello";
	trace(x);
	printf("\n");
	trace(y);
	printf("\n");
	trace(z);
	printf("\n");
	@[z] = count();
	@[z] = count();
	a[y] = 5;
	y.b = 3;
	printf("%d\n", a[y]);
	y.b = 2;
	printf("%d\n", a[y]);
	exit(0);
}
