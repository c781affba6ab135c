/*
 * Fires reachg:::tick three times (its second argument what glegacy.c,
 * compiled without the header, reads of the probe's semaphore), then
 * reachg:::done.
 */
#include <unistd.h>
#include "gprov.h"

int legacy_enabled(void);

int main(void)
{
	for (int i = 1; i <= 3; i++) {
		if (REACHG_TICK_ENABLED())
			REACHG_TICK(i, legacy_enabled());
	}
	REACHG_DONE();
	return 0;
}
