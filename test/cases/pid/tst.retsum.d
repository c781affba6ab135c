/* Return values summed through arg1; arg0 is the offset of the ret instruction in the function. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 1000' */
pid$target::work:return { @sum = sum(arg1); @n = count(); @at[arg0 > 0 && arg0 < 64 ? "inside" : "outside"] = count(); }
END { printa("sum %@d calls %@d\n", @sum, @n); printa("ret offset %s: %@d\n", @at); }
