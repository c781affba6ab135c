/* %x of a char or short is unsigned at the argument's size. */
/* @@opts: -q */
BEGIN { printf("%x %x %x\n", (char)-1, (short)-1, (int8_t)0x7f); exit(0); }
