BEGIN { @a = count(); trunc(@a, 1, 2); exit(0); }
