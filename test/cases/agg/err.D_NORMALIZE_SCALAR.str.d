BEGIN { @a = count(); normalize(@a, "two"); exit(0); }
