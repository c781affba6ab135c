/* inet_ntop() of a family other than AF_INET (2) and AF_INET6 (10) is an
   illegal operation at run time. */
/* @@opts: -q */
/* @@stderr: illegal operation in action #1 */
BEGIN { printf("%s\n", inet_ntop(99, alloca(16))); }
BEGIN { printf("%s\n", inet_ntop(2, alloca(16))); exit(0); }
