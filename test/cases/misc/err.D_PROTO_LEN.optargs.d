/* Too few arguments to a function with optional ones is "at least N expected", in dt_idcook_sign's words ("1 arg passed"). */
/* @@stderr: substr( ) prototype mismatch: 1 arg passed, at least 2 expected */
BEGIN
{
	trace(substr("abc"));
}
