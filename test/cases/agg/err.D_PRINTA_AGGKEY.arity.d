BEGIN { @a[1] = count(); @b[1, 2] = count(); printa("%@d %@d\n", @a, @b); exit(0); }
