/* usym(), ufunc(), umod() and uaddr() of the user PC at a profile tick (arg1). */
/* @@setup: gcc -O1 -fno-omit-frame-pointer -o /tmp/sonde-hot hot.c */
/* @@opts: -q -c /tmp/sonde-hot */
profile-997 /pid == $target && arg1/ { @s[usym(arg1)] = count(); @m[umod(arg1)] = count(); @f[ufunc(arg1)] = count(); }
END { trunc(@s, 1); trunc(@m, 1); trunc(@f, 1); printa("%A\n", @s); printa("%A\n", @m); printa("%A\n", @f); }
