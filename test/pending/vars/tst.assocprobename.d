/* @@opts: -q */
BEGIN { a[probename] = 4; a[probeprov, probename] = 5; printf("%d %d %d\n", a["BEGIN"], a["END"], a["dtrace", "BEGIN"]); exit(0); }
