/* @@opts: -q */
BEGIN { @a = count(); @b["k"] = sum(7); exit(0); }
