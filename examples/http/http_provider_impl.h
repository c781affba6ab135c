/* The structure the server passes to its probes (see ../lib/http.d for its D twin). */
#ifndef HTTP_PROVIDER_IMPL_H
#define HTTP_PROVIDER_IMPL_H
#include <stdint.h>

typedef struct {
	const char *http_laddr;     /* local IP address (as a string) */
	const char *http_raddr;     /* remote IP address (as a string) */
	const char *http_method;    /* GET, HEAD... */
	const char *http_uri;       /* URI requested */
	const char *http_useragent; /* User-Agent header, "" when none */
	uint64_t http_byteswritten; /* bytes sent to the client */
	uint32_t http_status;       /* response status, 0 before it is known */
	uint16_t http_lport;        /* local port */
	uint16_t http_rport;        /* remote port */
} httpproto_t;

#endif
