/* Keys missing from one aggregation of a printa() show 0 there (and sort as 0). */
/* @@opts: -q */
BEGIN { @c["a"] = count(); @s["b"] = sum(5); printa("%s %@d %@d\n", @c, @s); exit(0); }
