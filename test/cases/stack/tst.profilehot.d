/* A profile of a C program with a known hot function names it in ustack(). */
/* @@setup: gcc -O1 -fno-omit-frame-pointer -o /tmp/sonde-hot hot.c */
/* @@opts: -q -c /tmp/sonde-hot */
profile-997 /pid == $target/ { @[ustack(1)] = count(); }
END { trunc(@, 1); printa("%k\n", @); }
