/* @@opts: -q */
BEGIN { @[pid == $pid] = count(); printa("%d %@d\n", @); exit(0); }
