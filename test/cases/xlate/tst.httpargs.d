/* Translated USDT arguments: the http provider of examples/http passes an
   httpproto_t *; its definition gives clauses a conninfo_t * and an
   http_reqinfo_t * (args[0], args[1]), translated by examples/lib/http.d,
   which depends on net.d. Members are read one at a time; args[1] as a
   whole is built in scratch memory. */
/* @@setup: mkdir -p /tmp/sonde-http && cp ../../../examples/http/httpd.c ../../../examples/http/http_provider_impl.h /tmp/sonde-http/ */
/* @@setup: ../../../bin/sonde -h -s ../../../examples/http/http_provider.d -o /tmp/sonde-http/http_provider.h */
/* @@setup: gcc -O2 -o /tmp/sonde-http/httpd /tmp/sonde-http/httpd.c -lpthread */
/* @@opts: -q -L ../../../examples/lib -c '/tmp/sonde-http/httpd -p 18093 -n 3 -c' */
http*:::request-start {
	printf("%s %s %s %s %s\n", args[0]->ci_local, args[0]->ci_remote, args[0]->ci_protocol,
	    args[1]->hri_method, args[1]->hri_uri);
}

http*:::request-done {
	this->r = args[1];
	printf("%s %d %d %s\n", this->r->hri_uri, this->r->hri_status, this->r->hri_byteswritten > 0, this->r->hri_useragent);
}
