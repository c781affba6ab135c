BEGIN { x = 1;
