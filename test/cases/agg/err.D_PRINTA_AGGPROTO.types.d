BEGIN { @a["x"] = count(); @b[1] = count(); printa("%@d %@d\n", @a, @b); exit(0); }
