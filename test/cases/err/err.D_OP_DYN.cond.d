BEGIN { @a = count(); }
END { x = 1 ? @a : 2; }
