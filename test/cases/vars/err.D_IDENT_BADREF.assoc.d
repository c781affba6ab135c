/* @@stderr: associative array 'sizes' may not be referenced as scalar */
/* an associative array is used only with its keys */
BEGIN { sizes[1] = 10; trace(sizes); }
