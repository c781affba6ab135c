/* speculate() must come before any data-recording action of its clause
   (the guide's "Speculative Tracing"). */
BEGIN
{
	printf("recorded\n");
	speculate(speculation());
}
