/* @@opts: -q */
BEGIN { @[(int64_t)-1] = count(); @[(int64_t)-100] = count(); @[(int64_t)-100] = count(); exit(0); }
