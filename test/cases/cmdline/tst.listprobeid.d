/* -l -i lists the probe of an ID: syscall::read:entry's as sonde -l numbers it, found without a description. */
/* @@opts: -l -i 4 */
BEGIN
