/* @@opts: -q */
BEGIN { printf("[%-8s][%8s]\n", execname, execname); exit(0); }
