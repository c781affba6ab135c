/*
 * inet: writes IPv4 (4-byte writes) and IPv6 (16-byte writes) addresses to
 * /dev/null, in the order of its arguments, for the inet_ntop() cases.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char b[16];
	int fd = open("/dev/null", O_WRONLY);
	int i;

	for (i = 1; i < argc; i++) {
		if (inet_pton(AF_INET, argv[i], b) == 1)
			write(fd, b, 4);
		else if (inet_pton(AF_INET6, argv[i], b) == 1)
			write(fd, b, 16);
	}
	return 0;
}
