/*
 * fds[] for a process reading a known file (its path given as $1 and its
 * directory as $2) and writing to /dev/null: the file's name, path,
 * directory, offset (12 after the first read), open flags and
 * filesystem; /dev/null's mount point; "<none>" and 0 for a descriptor
 * that is not open.
 */
/* @@setup: mkdir -p /tmp/sonde-fds/dir && printf 'twelve bytes' > /tmp/sonde-fds/dir/known.txt */
/* @@opts: -q -c "/bin/sh -c 'exec cat /tmp/sonde-fds/dir/known.txt > /dev/null'" */
/* @@args: /tmp/sonde-fds/dir/known.txt /tmp/sonde-fds/dir */
syscall::read:entry
/pid == $target && fds[arg0].fi_name == "known.txt"/
{
	printf("fd>2=%d path=%d dir=%d offset=%d rdonly=%d fs=%d\n", arg0 > 2,
	    fds[arg0].fi_pathname == $$1, fds[arg0].fi_dirname == $$2,
	    fds[arg0].fi_offset, (fds[arg0].fi_oflags & 3) == 0,
	    fds[arg0].fi_fs != "" && fds[arg0].fi_fs != "<unknown>");
}

syscall::write:entry
/pid == $target && arg0 == 1/
{
	printf("%s %s %s %s %s wronly=%d\n", fds[1].fi_name, fds[1].fi_pathname,
	    fds[1].fi_dirname, fds[1].fi_fs, fds[1].fi_mount, (fds[1].fi_oflags & 3) == 1);
	printf("[%s] [%s] %d %d\n", fds[1000].fi_pathname, fds[-1].fi_mount,
	    fds[1000].fi_offset, fds[-1].fi_oflags);
}
