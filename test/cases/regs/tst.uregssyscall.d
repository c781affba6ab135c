/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=7 count=1 status=none' */
/* uregs[] in a system call probe are the registers the thread entered
   the kernel with: the arguments in RDI, RSI and RDX (equal to arg0,
   arg1 and arg2), and R_ERR, the kernel's orig_ax, the system call's
   number (write(2) is 1 on x86-64); dd writes one block of 7 bytes. R_PC is in user space. */
syscall::write:entry
/pid == $target/
{
	printf("%d %d %d %d %d\n", uregs[R_RDI] == arg0, uregs[R_RSI] == arg1, uregs[R_RDX] == arg2,
	    uregs[R_ERR], uregs[R_RDX]);
	printf("%d %d\n", uregs[R_PC] != 0 && uregs[R_PC] < 0x800000000000, uregs[R_DS]);
}
