BEGIN { @a = count(); clear(); exit(0); }
