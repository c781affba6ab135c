/* A pid that does not exist is a process DTrace fails to grab (D_PROC_GRAB). */
/* @@status: 1 */
/* @@stderr: pid 999999999: no such process */
pid999999999::malloc:entry { @ = count(); }
