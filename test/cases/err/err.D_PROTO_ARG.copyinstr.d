BEGIN { trace(copyinstr("x")); }
