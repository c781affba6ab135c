/*
 * -lv prints each probe's Probe Description Attributes (the minimum of the
 * provider's attributes and those of the fields its description gives:
 * syscall's empty module gives none) and Argument Attributes, as illumos's
 * syscall provider declares them (systrace.c), then its argument types.
 */
/* @@opts: -lv */
syscall::openat:entry
