/*
 * clear() of an aggregation without keys zeroes its value and keeps it:
 * printa() then prints it as zeros (quantize, lquantize and llquantize as
 * the buckets dt_print_*quantize show when there is no data), until
 * trunc() removes it. An aggregation that never fired prints nothing.
 */
/* @@opts: -q */
BEGIN
{
	@q = quantize(4);
	@c = count();
	@m = max(7);
	@l = lquantize(3, 0, 10, 2);
	@ll = llquantize(30, 10, 0, 3, 10);
	@t = sum(5);
	clear(@q);
	clear(@c);
	clear(@m);
	clear(@l);
	clear(@ll);
	trunc(@t);
}

BEGIN
{
	printa(@q);
	printa(@c);
	printa(@m);
	printa(@l);
	printa(@ll);
	printa(@t);
	printf("end\n");
	exit(0);
}

tick-1s
{
	@never = count();
}
