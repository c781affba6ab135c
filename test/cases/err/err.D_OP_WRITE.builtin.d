BEGIN { pid = 3; }
