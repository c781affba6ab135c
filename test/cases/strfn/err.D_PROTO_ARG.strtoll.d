BEGIN { trace(strtoll(42)); }
