/* #pragma D option destructive allows destructive actions as -w does
   (the guide's "Options and Tunables": destructive, the -w alias). */
/* @@opts: -q */
#pragma D option destructive
BEGIN
{
	chill(1000);
	printf("allowed\n");
	exit(0);
}
