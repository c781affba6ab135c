/* %ld takes a long; an int constant is refused. */
BEGIN { printf("%ld\n", 1); exit(0); }
