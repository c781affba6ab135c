/* struct and union layout on x86-64 as gcc gives it: natural alignment,
   sizes rounded to the largest alignment, unions as large as their largest
   member, arrays of structs, bit-fields packed into their storage units. */
#pragma D option quiet

struct a { char c; int i; short s; long l; char buf[5]; };
struct b { uint8_t x; struct a inner; uint16_t y; };
union u { char c; int i; uint64_t l; char b[13]; };
struct c { char c; union u un; int16_t arr[3]; void *p; };
typedef struct { uint32_t a; uint64_t b; uint8_t c; } e_t;
struct f { e_t e[2]; char z; };
struct bf { char c; unsigned x : 4; short y : 12; char z; };

BEGIN {
	printf("%d %d %d %d %d\n", sizeof(struct a), offsetof(struct a, i), offsetof(struct a, s), offsetof(struct a, l), offsetof(struct a, buf));
	printf("%d %d %d\n", sizeof(struct b), offsetof(struct b, inner), offsetof(struct b, y));
	printf("%d %d %d %d\n", sizeof(union u), sizeof(struct c), offsetof(struct c, arr), offsetof(struct c, p));
	printf("%d %d %d\n", sizeof(e_t), sizeof(struct f), offsetof(struct f, z));
	printf("%d %d\n", sizeof(struct bf), offsetof(struct bf, z));
	exit(0);
}
