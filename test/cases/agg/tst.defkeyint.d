/* @@opts: -q */
BEGIN { @[1] = count(); @[2] = count(); @[2] = count(); exit(0); }
