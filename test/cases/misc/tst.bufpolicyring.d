/* @@opts: -q -x bufsize=4k -x bufpolicy=ring */
/* bufpolicy=ring (the guide's "Buffers and Buffering": "the ring
   policy"): nothing is printed while tracing; at the end, the most recent
   records that fit in the buffer are, END's last. Each firing here takes
   40 bytes of records: the last 100 of 300, the exit() and END fit in
   4k. */
tick-1ms
/n < 300/
{
	printf("%d\n", n++);
}

tick-1ms
/n == 300/
{
	exit(0);
}

END
{
	printf("end\n");
}
