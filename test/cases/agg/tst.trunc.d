/* @@opts: -q */
BEGIN { @a["x"] = count(); @a["y"] = count(); @a["y"] = count(); trunc(@a, 1); printa("%s %@d\n", @a); exit(0); }
