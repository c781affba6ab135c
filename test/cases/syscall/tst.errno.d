/* @@opts: -q -c 'rmdir /nonexistent/sonde' */
/* @@status: 0 */
syscall::rmdir:return /pid == $target/ { printf("%d %d\n", errno, arg0); }
