/* Held at main (evaltime=main), the command has not run a single
 * instruction of main when the probes go in: main:entry fires. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -x evaltime=main -c /tmp/sonde-calls */
pid$target::main:entry { printf("main\n"); }
