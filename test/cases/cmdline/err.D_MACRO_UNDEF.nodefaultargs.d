/* Without defaultargs, a macro argument not given is an error. */
BEGIN { trace($2); exit(0); }
