/* -p: the pid provider instruments a library the process loads with dlopen() after sonde attached (-Z: it is not loaded yet). */
/* @@setup: mkdir -p /tmp/sonde-dl && ../../../bin/sonde -h -s dlw.d -o /tmp/sonde-dl/dlw.h */
/* @@setup: gcc -O2 -I/tmp/sonde-dl -fPIC -shared -o /tmp/sonde-dl/libdlwork.so dlwork.c */
/* @@setup: gcc -O2 -I/tmp/sonde-dl -o /tmp/sonde-dl/dlmain dlmain.c -ldl */
/* @@spawn: /tmp/sonde-dl/dlmain /tmp/sonde-dl/libdlwork.so 500 pid */
/* @@opts: -q -Z -p {spawn} */
pid$target:a.out:marker:entry { @marker = count(); }
pid$target:libdlwork.so:work:entry { @calls = count(); @sum = sum(arg0); }
END { printa("marker %@d calls %@d sum %@d\n", @marker, @calls, @sum); }
