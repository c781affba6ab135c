/* Held at its entry point (the default with pid probes), the command has
 * not run the first instruction of _start: _start:entry fires. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c /tmp/sonde-calls */
pid$target::_start:entry { printf("_start\n"); }
pid$target::main:entry { printf("main\n"); }
