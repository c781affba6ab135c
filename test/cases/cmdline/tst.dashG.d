/* -G writes an object for the provider, here with no object to link. */
/* @@opts: -G -o /tmp/sonde-dashG.o */
provider p { probe q(); };
