/* curthread is the current struct task_struct *, read through the kernel's BTF: its comm is execname, its real parent's tgid ppid, its tgid pid. */
/* @@opts: -q -c 'sleep 0.1' */
syscall::nanosleep:entry,syscall::clock_nanosleep:entry /pid == $target/
{
	printf("%d %d %d %d\n", curthread->comm == execname, stringof(curthread->comm) == "sleep",
	    curthread->real_parent->tgid == ppid, curthread->tgid == pid);
}
