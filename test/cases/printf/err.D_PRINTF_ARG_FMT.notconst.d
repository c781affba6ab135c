/* printf's format must be a string constant: a variable is refused with DTrace's tag for it. */
BEGIN
{
	printf(execname);
}
