/* @@stderr: fds[ ] requires exactly one index */
BEGIN { trace(fds[0, 1].fi_name); }
