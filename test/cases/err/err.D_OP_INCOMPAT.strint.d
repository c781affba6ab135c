BEGIN { x = "a"; y = x == 1; }
