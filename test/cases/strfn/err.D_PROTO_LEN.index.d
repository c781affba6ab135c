BEGIN { trace(index("a", "b", 1, 2)); }
