/* sonde -h turns a provider definition into a C header (checked by compiling it in internal/usdt/header). */
/* @@opts: -h -o /tmp/sonde-tst-header.h */
provider http {
	probe request__start(char *uri) : (char *uri);
	probe request__done(char *uri, int status);
};
#pragma D attributes Evolving/Evolving/ISA provider http provider
