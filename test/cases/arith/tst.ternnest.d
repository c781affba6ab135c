/* @@opts: -q */
BEGIN { x = 5; printf("%s %s\n", x < 3 ? "low" : x < 7 ? "mid" : "high", x > 9 ? "big" : "small"); exit(0); }
