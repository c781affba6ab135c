/* At exit, aggregations print in the order they first appear in the program. */
/* @@opts: -q */
BEGIN { @b["x"] = count(); @a["y"] = sum(5); @c = max(9); exit(0); }
