/* @@opts: -q */
BEGIN { @a["x"] = count(); trunc(@a); } BEGIN { @a["y"] = count(); printa("%s %@d\n", @a); exit(0); }
