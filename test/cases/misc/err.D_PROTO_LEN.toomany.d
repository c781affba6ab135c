/* Too many arguments to a function with optional ones is "at most N expected". */
/* @@stderr: stack( ) prototype mismatch: 2 args passed, at most 1 expected */
BEGIN
{
	stack(1, 2);
}
