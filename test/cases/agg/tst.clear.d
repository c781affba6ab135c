/* @@opts: -q */
BEGIN { @a["x"] = count(); clear(@a); printa("%s %@d\n", @a); exit(0); }
