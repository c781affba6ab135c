/* A string key longer than 50 characters is not truncated. */
/* @@opts: -q */
BEGIN { @["abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123"] = count(); exit(0); }
