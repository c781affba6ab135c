/*
 * gen.c writes ../cprintf.txt: what glibc's printf(3) prints for a grid of
 * integer and floating-point conversions, the reference for the small
 * printf engine of package format (cfmt.go). Each line is
 *
 *	format <TAB> i|f <TAB> argument <TAB> output
 *
 * with integer arguments in decimal (as a signed 64-bit value; 32-bit
 * conversions take its low half) and doubles in C99 hex-float notation.
 * Regenerate with: cc -o /tmp/gen gen.c && /tmp/gen > ../cprintf.txt
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static const char *iflags[] = { "", "#", "0", "-", "+", " ", "#0", "+0",
    " 0", "-+", "- ", "-#", "+ ", "#-+ " };
static const char *fflags[] = { "", "#", "0", "-", "+", " ", "#0", "-+" };

int
main(void)
{
	const char *widths[] = { "", "6", "22" };
	const char *iprecs[] = { "", ".3", ".21" };
	const char *fprecs[] = { "", ".0", ".1", ".12" };
	const char *iverbs[] = { "lld", "llu", "llx", "llX", "llo", "d", "u", "x" };
	int64_t ivals[] = { 0, 1, -1, -42, INT64_MIN, INT64_MAX };
	const char *fwidths[] = { "", "12" };
	const char *fverbs[] = { "e", "E", "f", "g", "G" };
	double fvals[] = { 0.0, -0.0, 1.0, -1.5, 0.1, 123.456, 1e-5, 1e-4,
	    123456789.0, 1e100 };
	char fmt[64], out[256];
	size_t a, b, c, d, e;

	for (a = 0; a < sizeof (iflags) / sizeof (iflags[0]); a++)
	for (b = 0; b < 3; b++)
	for (c = 0; c < 3; c++)
	for (d = 0; d < sizeof (iverbs) / sizeof (iverbs[0]); d++)
	for (e = 0; e < sizeof (ivals) / sizeof (ivals[0]); e++) {
		(void) snprintf(fmt, sizeof (fmt), "%%%s%s%s%s", iflags[a],
		    widths[b], iprecs[c], iverbs[d]);
		if (strncmp(iverbs[d], "ll", 2) == 0)
			(void) snprintf(out, sizeof (out), fmt, ivals[e]);
		else
			(void) snprintf(out, sizeof (out), fmt, (int)ivals[e]);
		printf("%s\ti\t%lld\t%s\n", fmt, (long long)ivals[e], out);
	}
	for (a = 0; a < sizeof (fflags) / sizeof (fflags[0]); a++)
	for (b = 0; b < 2; b++)
	for (c = 0; c < 4; c++)
	for (d = 0; d < sizeof (fverbs) / sizeof (fverbs[0]); d++)
	for (e = 0; e < sizeof (fvals) / sizeof (fvals[0]); e++) {
		(void) snprintf(fmt, sizeof (fmt), "%%%s%s%s%s", fflags[a],
		    fwidths[b], fprecs[c], fverbs[d]);
		(void) snprintf(out, sizeof (out), fmt, fvals[e]);
		printf("%s\tf\t%a\t%s\n", fmt, fvals[e], out);
	}
	return (0);
}
