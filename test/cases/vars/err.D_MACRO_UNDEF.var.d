/* A macro variable DTrace does not define is an error naming it as a variable, not an argument. */
/* @@stderr: macro variable $nosuch is not defined */
BEGIN
{
	trace($nosuch);
	exit(0);
}
