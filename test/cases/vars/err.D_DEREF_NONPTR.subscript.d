/* @@stderr: cannot dereference non-pointer type */
/* x[1] is *(x + 1): x must be a pointer or an array */
BEGIN { x = 5; trace(x[1]); }
