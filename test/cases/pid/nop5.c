/*
 * tst.nop5offset.d's workload: leaf() keeps x and 2x in the red zone
 * below %rsp across a 5-byte nop at leaf+0xe (written in assembly, so the
 * offset is fixed). A uprobe there would be rewritten by Linux 6.18 into a
 * call that writes over them: the program checks every result and prints
 * how many were wrong.
 */
#include <stdio.h>
#include <stdlib.h>

long leaf(long x);

__asm__(".text\n"
	".globl leaf\n"
	".type leaf, @function\n"
	"leaf:\n"
	"\tmovq %rdi, -8(%rsp)\n"		/* 5 bytes */
	"\tleaq (%rdi,%rdi), %rax\n"		/* 4 bytes */
	"\tmovq %rax, -16(%rsp)\n"		/* 5 bytes */
	"\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"	/* leaf+0xe: nopl 0(%rax,%rax,1) */
	"\tmovq -8(%rsp), %rax\n"
	"\taddq -16(%rsp), %rax\n"
	"\tret\n"
	".size leaf, .-leaf\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, bad = 0;

	for (long i = 0; i < n; i++)
		if (leaf(i) != 3 * i)
			bad++;
	printf("calls %ld mismatches %ld\n", n, bad);
	return 0;
}
