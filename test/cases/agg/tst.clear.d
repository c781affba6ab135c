/* @@opts: -q */
BEGIN { @a["x"] = count(); clear(@a); } BEGIN { @a["y"] = count(); printa("%s %@d\n", @a); exit(0); }
