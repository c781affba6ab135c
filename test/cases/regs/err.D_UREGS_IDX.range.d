/* An index that names no register. */
BEGIN { trace(uregs[100]); exit(0); }
