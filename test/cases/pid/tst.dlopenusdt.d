/* -c: USDT probes of a library loaded with dlopen() after the command started are found and enabled (semaphore set), args typed. */
/* @@setup: mkdir -p /tmp/sonde-dl && ../../../bin/sonde -h -s dlw.d -o /tmp/sonde-dl/dlw.h */
/* @@setup: gcc -O2 -I/tmp/sonde-dl -fPIC -shared -o /tmp/sonde-dl/libdlwork.so dlwork.c */
/* @@setup: gcc -O2 -I/tmp/sonde-dl -o /tmp/sonde-dl/dlmain dlmain.c -ldl */
/* @@opts: -q -Z -c '/tmp/sonde-dl/dlmain /tmp/sonde-dl/libdlwork.so 300 usdt' */
pid$target:a.out:marker:entry { @marker = count(); }
dlw$target:::ready { @ready = count(); }
dlw$target:libdlwork.so:work:work { @calls = count(); @sum = sum(args[0]); @mods[probemod, probefunc] = count(); }
END { printa("marker %@d ready %@d calls %@d sum %@d\n", @marker, @ready, @calls, @sum); printa("%s %s %@d\n", @mods); }
