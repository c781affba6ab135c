BEGIN { @a = 3; }
