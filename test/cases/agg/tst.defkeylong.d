/* @@opts: -q */
BEGIN { @[(long)1] = count(); @[(long)2] = count(); @[(long)2] = count(); exit(0); }
