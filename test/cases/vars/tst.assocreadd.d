/* Storing 0 deletes an element; it can be created again. */
/* @@opts: -q */
BEGIN { a["x"] = 5; a["x"] = 0; a["x"] += 2; printf("%d\n", a["x"]); exit(0); }
