/*
 * A string key is as wide as the widest string any use stores: "a" first
 * does not cut the others to 7 characters (which printed "abcdefg 2").
 */
/* @@opts: -q */
BEGIN { @c["a"] = count(); @c["abcdefgh_1"] = count(); @c["abcdefgh_2"] = count(); exit(0); }
