/* -F (flowindent): each entry prints "-> function" and indents what follows by two, each return unindents and prints "<- function", other probes print "| function:name"; a second clause of the entry probe that printed last does not indent again. */
/* @@setup: gcc -O1 -fno-optimize-sibling-calls -o /tmp/sonde-flow flow.c */
/* @@opts: -F -c /tmp/sonde-flow */
pid$target::outer:entry, pid$target::middle:entry, pid$target::inner:entry,
pid$target::outer:return, pid$target::middle:return, pid$target::inner:return
{
}

pid$target::middle:entry
{
}

END
{
}
