/* copyinstr() in io:::start would read the memory of whichever thread issues the request, not of the one that made it: refused, not a wrong string. */
/* @@status: 1 */
/* @@stderr: copyinstr( ) is not supported here: this probe fires for another thread */
io:::start { trace(copyinstr(0)); }
