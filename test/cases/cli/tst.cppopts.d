/* @@opts: -q -C -I cppinc -D ANSWER=42 '-DGREETING="hello"' -DGONE -UGONE */
/* dtrace(1)'s options for the C preprocessor (-C): -D defines a name
   (with or without a value), -U undefines one, -I adds a directory of
   #include files. cpp keeps its own predefined names (__x86_64__,
   __linux__), so that system headers can test them, but not the
   traditional linux and unix, which D scripts use as names. */
#include <cppopts.h>

BEGIN
{
	linux = 1;
	printf("%d %s %d\n", ANSWER, GREETING, FROM_HEADER);
#ifdef GONE
	printf("GONE is defined\n");
#endif
#if defined(__x86_64__) && defined(__linux__) && defined(__SUNW_D)
	printf("x86-64 linux D %d\n", linux);
#endif
	exit(0);
}
