BEGIN { trace(strstr(1, "a")); }
