/* @@opts: -q -x bufsize=4k -x bufpolicy=fill */
/* bufpolicy=fill (the guide's "Buffers and Buffering": "the fill
   policy"): once the principal buffer is full, tracing stops, the records
   that fit are printed, and END's clauses still run and print. Each
   firing here takes 40 bytes of records, so 102 fit in 4k. */
tick-1ms
{
	printf("%d\n", n++);
}

END
{
	printf("end %d\n", n >= 102);
}
