/* An aggregation already printed with printa() is not printed again at exit. */
/* @@opts: -q */
BEGIN { @a = count(); @b = sum(4); printa("a=%@d\n", @a); exit(0); }
