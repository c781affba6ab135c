/* A function called exactly N times gives N through pid$target::fn:entry, and its arguments. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 1000' */
pid$target::work:entry { @calls = count(); @a0 = sum(arg0); @a1 = sum(arg1); }
END { printa("calls %@d arg0 %@d", @calls, @a0); printa(" arg1 %@d\n", @a1); }
