BEGIN { trace(index("abc", 1)); }
