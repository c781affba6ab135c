/* Probe names are keys like other strings: a[probename] and a["BEGIN"] name
   one element. (One array may not be used with 1 key and then 2: that is
   D_PROTO_LEN, so the 2-key tuple has its own array.) */
/* @@opts: -q */
BEGIN { a[probename] = 4; b[probeprov, probename] = 5; printf("%d %d %d\n", a["BEGIN"], a["END"], b["dtrace", "BEGIN"]); exit(0); }
