BEGIN { x = 09; }
