/* The workload of the xlate cases: it passes a struct rec to write(2) on
   fd -1 (which fails, harmlessly) so that D can read it in user memory,
   then opens each of its arguments with plain O_RDONLY flags. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

struct inner {
	uint16_t port;
	uint8_t flags;
};

struct rec {
	char tag;
	int32_t id;
	char name[12];
	struct inner in;
	uint64_t big;
	unsigned lo : 3, mid : 7;
	int neg : 5;
	union {
		uint32_t u;
		uint8_t b[4];
	} un;
	const char *path;
	int16_t arr[3];
};

int main(int argc, char **argv)
{
	struct rec r;
	memset(&r, 0, sizeof(r));
	r.tag = 'x';
	r.id = -42;
	strcpy(r.name, "hello, rec");
	r.in.port = 8080;
	r.in.flags = 0x81;
	r.big = (1ULL << 40) | 7;
	r.lo = 5;
	r.mid = 100;
	r.neg = -3;
	r.un.u = 0x04030201;
	r.path = argc > 1 ? argv[1] : "none";
	r.arr[0] = -1;
	r.arr[1] = 2;
	r.arr[2] = 300;
	if (write(-1, &r, sizeof(r)) != -1)
		return 1;
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
