/* @@opts: -q */
/* A global struct variable: every kind of member assigned and read back
   (a narrow integer wraps at its size, bit-fields keep their width and
   sign, a char array holds as many bytes as it has, a string member a
   string, an array member its elements, a nested struct its own), the
   operators that assign (=, op=, ++, --), and sizeof. The layout is C's
   (sizeof and offsetof are compared with gcc's by structlayout_test.go). */
struct in {
	short x;
	long y;
};
struct foo {
	int a;
	char b;
	long c;
	unsigned int f1:3, f2:5;
	int s3:4;
	char name[8];
	string str;
	int arr[4];
	struct in in;
} st;

BEGIN
{
	st.a = 0x1234;
	st.b = 300;
	st.c = -5;
	st.c *= 3;
	st.f1 = 9;
	st.f2 = 31;
	st.s3 = -3;
	printf("%x %d %d %d %d %d\n", st.a, st.b, st.c, st.f1, st.f2, st.s3);
	st.f2--;
	st.s3 += 10;
	x = (st.f1 = 6);
	printf("%d %d %d %d %d\n", st.f1, st.f2, st.s3, x, st.a);
	st.name = "abcdefghij";
	st.str = execname;
	printf("%s %s %c %d\n", st.name, st.str, st.name[2], strlen(st.name));
	st.name = "xy";
	printf("%s %d\n", st.name, st.name[3]);
	st.arr[2] = 7;
	i = 1;
	st.arr[i] = st.arr[2] * 2;
	st.arr[i + 2]++;
	printf("%d %d %d %d\n", st.arr[0], st.arr[1], st.arr[2], st.arr[3]);
	st.in.x = -1;
	st.in.y = 1 << 40;
	printf("%d %d\n", st.in.x, st.in.y);
	printf("%d %d %d %d\n", sizeof(st), sizeof(st.in), sizeof(st.name), sizeof(struct foo));
	printf("%d %d %d %d\n", offsetof(struct foo, name), offsetof(struct foo, str),
	    offsetof(struct foo, arr), offsetof(struct foo, in));
}

tick-1ms
/st.a == 0x1234/
{
	/* kept across probes */
	printf("%x %d %s\n", st.a, st.in.y, st.str);
	exit(0);
}
