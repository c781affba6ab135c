BEGIN { x = "a" & 1; }
