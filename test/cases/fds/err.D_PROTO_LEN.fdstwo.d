/* @@stderr: fds[ ] prototype mismatch: 2 args passed, 1 expected */
BEGIN { trace(fds[0, 1].fi_name); }
