/*
 * After exit(), END's clause runs whole: every action after its first was
 * skipped (the second printa printed nothing, and @b came out unlabelled
 * in the default printing at exit).
 */
/* @@opts: -q */
BEGIN { @a = count(); @b = count(); }
BEGIN { exit(0); }
END { printa("a %@d\n", @a); printa("b %@d\n", @b); printf("c\n"); }
