/* An index outside a global array that only the running code knows is
   a fault (Oracle DTrace: "index out of bounds"), reported with the index,
   and it abandons the clause: the element past the end is neither written
   nor read (a[8] would be b[2]). The ERROR probe sees the fault, as
   DTRACEFLT_UNKNOWN: illumos has no code for it. */
/* @@stderr: index out of bounds (8) in action #2 */
/* @@stderr: index out of bounds (-1) in action #2 */
#pragma D option quiet
int a[5];
int b[3];
BEGIN
{
	i = 8;
	a[i] = 12345678;
	printf("not reached\n");
}
BEGIN { j = -1; trace(a[j]); printf("not reached\n"); }
ERROR { printf("fault %d index %d\n", arg4, arg5); }
BEGIN { printf("%d %d %d %d\n", a[0], a[4], b[0], b[2]); exit(0); }
