/* A program that requires a provider without probes. */
#pragma D depends_on provider nosuchprovider
BEGIN { exit(0); }
