/* A USDT provider of a pid that does not exist: the process cannot be grabbed (D_PROC_GRAB), as with the pid provider. */
/* @@status: 1 */
/* @@stderr: pid 999999999: no such process */
foo999999999:::bar { @ = count(); }
