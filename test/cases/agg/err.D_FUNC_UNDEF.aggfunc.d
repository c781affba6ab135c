BEGIN { @a = nosuchagg(1); exit(0); }
