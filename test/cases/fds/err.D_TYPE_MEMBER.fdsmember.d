/* @@stderr: fi_nosuch is not a member of fileinfo_t */
BEGIN { trace(fds[0].fi_nosuch); }
