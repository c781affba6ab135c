/* aggsortkeypos=1 sorts on the second key first. */
/* @@opts: -q -x aggsortkey -x aggsortkeypos=1 */
BEGIN { @[(long)1, "z"] = count(); @[(long)2, "y"] = count(); @[(long)3, "x"] = count(); @[(long)0, "x"] = count(); printa("%d %s\n", @); exit(0); }
