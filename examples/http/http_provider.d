/*
 * The http provider: what the server passes (an httpproto_t *) and what D
 * clauses see (a conninfo_t and an http_reqinfo_t, translated by the
 * support library ../lib/http.d).
 *
 *	sonde -h -s http_provider.d -o http_provider.h
 *
 * Unlike dtrace -h, sonde needs no dummy definitions of the types here.
 */
provider http {
	probe request__start(httpproto_t *p) : (conninfo_t *p, http_reqinfo_t *p);
	probe request__done(httpproto_t *p) : (conninfo_t *p, http_reqinfo_t *p);
};

#pragma D attributes Evolving/Evolving/ISA provider http provider
#pragma D attributes Private/Private/Unknown provider http module
#pragma D attributes Private/Private/Unknown provider http function
#pragma D attributes Private/Private/ISA provider http name
#pragma D attributes Evolving/Evolving/ISA provider http args
