BEGIN { trace(rindex("abc")); }
