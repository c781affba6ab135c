/* @@opts: -q */
BEGIN { @[-1] = count(); @[-100] = count(); @[-100] = count(); exit(0); }
