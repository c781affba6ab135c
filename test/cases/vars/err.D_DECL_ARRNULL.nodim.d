/* @@stderr: array declaration requires array dimension or tuple signature: buf */
int buf[];
BEGIN { exit(0); }
