/* %c takes a char, short or int. */
BEGIN { printf("%c\n", timestamp); exit(0); }
