/* @@opts: -q */
/* curcpu points to the cpuinfo_t of the CPU the probe fires on (the
   guide's sched provider): its cpu_id is cpu, it can be copied whole,
   and cpuinfo_t is Oracle's Linux one, four ints. TestCurcpu checks
   cpu_chip and cpu_lgrp against sysfs. */
cpuinfo_t c;
profile-97
{
	c = *curcpu;
	printf("%d %d %d %d\n", curcpu->cpu_id == cpu, c.cpu_id == cpu, curcpu->cpu_pset, sizeof (*curcpu));
	exit(0);
}
