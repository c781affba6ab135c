/* @@opts: -q */
BEGIN { @c["a"] = count(); @s["a"] = sum(5); @c["b"] = count(); @s["b"] = sum(7); printa("%s %@d %@d\n", @c, @s); exit(0); }
