/* A pid that does not exist. */
/* @@status: 1 */
/* @@stderr: pid 999999999: no such process */
pid999999999::malloc:entry { @ = count(); }
