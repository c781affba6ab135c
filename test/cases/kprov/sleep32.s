# A 32-bit (i386) program for tst.dmodel.d, assembled with as --32 and
# linked with ld -m elf_i386 (no 32-bit C library needed): it sleeps
# 20 ms fifty times with the i386 nanosleep system call, then exits 0.
	.section .data
ts:	.long 0, 20000000
	.section .text
	.globl _start
_start:
	mov $50, %esi
1:	mov $162, %eax		# nanosleep
	mov $ts, %ebx
	xor %ecx, %ecx
	int $0x80
	dec %esi
	jnz 1b
	mov $1, %eax		# exit
	xor %ebx, %ebx
	int $0x80
