/* @@opts: -q */
BEGIN { @["sh", 12] = count(); @["bash", 7] = count(); @["bash", 7] = count(); exit(0); }
