/* @@opts: -q */
BEGIN { x = 5; printf("%d %s\n", x > 3 ? 10 : 20, x < 3 ? "lt" : "ge"); exit(0); }
