/* -F: the syscall provider's entry and return print "=>" and "<=" where other providers print "->" and "<-". */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -F -c '/tmp/sonde-sysc 2' */
syscall::getppid:entry, syscall::getppid:return
/pid == $target/
{
}
