/* #pragma D option defaultargs: a macro argument not given is 0, and as
   $$N the empty string (the guide's "Scripting": "Macro arguments"); the
   ones given keep their value. */
/* @@opts: -q */
/* @@args: 42 */
#pragma D option defaultargs
BEGIN
{
	printf("[%d] [%d] [%s] [%d]\n", $1, $2, $$3, $2 + 1);
	exit(0);
}
