/* @@opts: -q */
BEGIN { @[execname, probename] = count(); exit(0); }
