/*
 * http.d: the support library of the http provider (../http): the D
 * twin of the structure the server passes, the structure D clauses see,
 * and the translators between them. conninfo_t comes from net.d.
 *
 *	sonde -L examples/lib -n 'http*:::request-start { printf("%s\n", args[1]->hri_uri); }'
 *
 * The server is a 64-bit (LP64) program: its pointers are 8 bytes, read
 * with copyin() from the traced process and followed with copyinstr().
 */
#pragma D depends_on library net.d

typedef struct httpproto {
	uint64_t http_laddr;		/* const char * */
	uint64_t http_raddr;		/* const char * */
	uint64_t http_method;		/* const char * */
	uint64_t http_uri;		/* const char * */
	uint64_t http_useragent;	/* const char * */
	uint64_t http_byteswritten;
	uint32_t http_status;
	uint16_t http_lport;
	uint16_t http_rport;
} httpproto_t;

typedef struct http_reqinfo {
	string hri_uri;			/* URI requested */
	string hri_method;		/* GET, HEAD... */
	string hri_useragent;		/* "User-Agent" header */
	uint64_t hri_byteswritten;	/* bytes sent to the client */
	uint32_t hri_status;		/* response status (request-done) */
} http_reqinfo_t;

#pragma D binding "1.6.1" translator
translator conninfo_t < httpproto_t *dp > {
	ci_local = copyinstr(*(uint64_t *)copyin((uintptr_t)&dp->http_laddr, sizeof (uint64_t)));
	ci_remote = copyinstr(*(uint64_t *)copyin((uintptr_t)&dp->http_raddr, sizeof (uint64_t)));
	ci_protocol = "ipv4";
};

#pragma D binding "1.6.1" translator
translator http_reqinfo_t < httpproto_t *dp > {
	hri_uri = copyinstr(*(uint64_t *)copyin((uintptr_t)&dp->http_uri, sizeof (uint64_t)));
	hri_method = copyinstr(*(uint64_t *)copyin((uintptr_t)&dp->http_method, sizeof (uint64_t)));
	hri_useragent = copyinstr(*(uint64_t *)copyin((uintptr_t)&dp->http_useragent, sizeof (uint64_t)));
	hri_byteswritten = *(uint64_t *)copyin((uintptr_t)&dp->http_byteswritten, sizeof (uint64_t));
	hri_status = *(uint32_t *)copyin((uintptr_t)&dp->http_status, sizeof (uint32_t));
};
