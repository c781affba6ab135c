/* @@opts: -q */
BEGIN { @["sh", (long)12] = count(); @["bash", (long)7] = count(); @["bash", (long)7] = count(); exit(0); }
