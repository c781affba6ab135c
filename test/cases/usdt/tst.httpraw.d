/* The seed's HTTP provider without translators: definition -> sonde -h -> compiled server; arg0 is the native httpproto_t *, read with copyin. */
/* @@setup: make -s -C ../../../examples/http SONDE=../../bin/sonde */
/* @@opts: -q -c '../../../examples/http/httpd -c -n 3 -p 0' */
http$target:::request-start
{
	this->uri = *(uint64_t *)copyin(arg0 + 24, 8);
	printf("%s %s\n", probename, copyinstr(this->uri));
}
http$target:::request-done
{
	printf("%s status %d\n", probename, *(uint32_t *)copyin(arg0 + 48, 4));
}
