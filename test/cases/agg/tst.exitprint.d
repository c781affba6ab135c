/* @@opts: -q */
BEGIN { @a = count(); } BEGIN { exit(0); } END { @b = sum(3); }
