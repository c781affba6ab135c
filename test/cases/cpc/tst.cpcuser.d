/*
 * A user-mode-only counter: cpc:::cpu-clock-user-1000000 samples a process
 * spinning in user mode with its user PC in arg1 and 0 in arg0, and never
 * fires in kernel mode (arg0 is 0 for every sample, of every process).
 */
/* @@opts: -q -c "/bin/sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'" */
cpc:::cpu-clock-user-1000000
{
	kernel += arg0 != 0;
}

cpc:::cpu-clock-user-1000000
/pid == $target/
{
	mine++;
	user += arg1 != 0;
}

END
{
	printf("samples>0=%d all user=%d kernel=%d\n", mine > 0, user == mine, kernel);
}
