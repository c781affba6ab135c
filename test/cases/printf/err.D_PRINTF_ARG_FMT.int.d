/* @@stderr: prototype: string constant */
/* the first argument of printf() is its format */
BEGIN { printf(42); }
