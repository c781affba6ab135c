/* @@opts: -q --json */
BEGIN { printf("hi %d\n", 3); trace(5); @a["x"] = count(); exit(0); }
