/* stack() in io:::start would be the stack of whichever thread issues the request, not of the one that made it (the thread io:::start fires for): refused. */
/* @@status: 1 */
/* @@stderr: stack() is not supported in io:::start */
io:::start { @[stack()] = count(); }
