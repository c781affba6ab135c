/* The library dlmain.c loads: work() has a pid entry probe site and a
   USDT probe; work_enabled() says whether the probe is enabled. */
#include "dlw.h"

__attribute__((noinline)) int work(int i)
{
	if (DLW_WORK_ENABLED())
		DLW_WORK(i);
	return 2 * i + 1;
}

int work_enabled(void) { return DLW_WORK_ENABLED(); }
