/* An arch header in the shape of arm64's. */
#define __ARCH_WANT_NEW_STAT
#define __ARCH_WANT_RENAMEAT

#include <asm-generic/unistd.h>
