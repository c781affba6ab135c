/* -f takes [[provider:]module:]function, as dtrace's: syscall::read names the function read of the provider syscall (with the description of the script). */
/* @@opts: -l -f syscall::read */
BEGIN
