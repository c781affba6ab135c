/*
 * stringof() of a kernel pointer reads the string it points to: the name
 * of the dentry of the traced process's executable (a const unsigned
 * char *, through four pointers and an embedded struct path), and of a
 * char array (task_struct's comm).
 */
/* @@opts: -q -c 'sleep 0.1' */
syscall::nanosleep:entry,syscall::clock_nanosleep:entry /pid == $target/
{
	printf("%s %s\n", stringof(curthread->mm->exe_file->f_path.dentry->d_name.name), stringof(curthread->comm));
}
