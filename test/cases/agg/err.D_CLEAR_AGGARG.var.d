BEGIN { @a = count(); x = 1; clear(x); exit(0); }
