BEGIN { @a[pid] = sum(probefunc); exit(0); }
