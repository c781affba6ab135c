/* @@stderr: malformed #pragma attributes <attributes> <ident> */
#pragma D attributes Evolving/Evolving/Common
BEGIN { exit(0); }
