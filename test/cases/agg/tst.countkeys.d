/* @@opts: -q */
BEGIN { @[1] = count(); @[1] = count(); @[2] = count(); printa("%d %@d\n", @); exit(0); }
