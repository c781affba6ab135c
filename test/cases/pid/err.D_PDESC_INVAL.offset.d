/* An offset inside an instruction is refused, naming the instruction; the process is not touched. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -c '/tmp/sonde-calls 3' */
/* @@stderr: is inside the instruction at 0x0 */
pid$target::pick:1 { @ = count(); }
