/*
 * httpd: a small HTTP/1.0 server instrumented with the http provider.
 *
 *	httpd [-p port] [-n requests] [-c]
 *
 * It serves files-that-are-not (every GET answers with a short page naming
 * the URI) on 127.0.0.1:port, firing http:::request-start when a request
 * has been read and http:::request-done when its response is sent. With
 * -c it also runs a client that sends the n requests (GET /page/0 ...
 * /page/n-1) and exits after them: a self-contained workload for tests.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_provider.h"
#include "http_provider_impl.h"

static int port = 8080, nreq = 10;

static void serve(int fd, const struct sockaddr_in *local, const struct sockaddr_in *remote)
{
	char buf[4096], method[16] = "", uri[1024] = "", agent[256] = "", laddr[INET_ADDRSTRLEN], raddr[INET_ADDRSTRLEN];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	sscanf(buf, "%15s %1023s", method, uri);
	char *ua = strstr(buf, "User-Agent: ");
	if (ua)
		sscanf(ua + 12, "%255[^\r\n]", agent);
	inet_ntop(AF_INET, &local->sin_addr, laddr, sizeof(laddr));
	inet_ntop(AF_INET, &remote->sin_addr, raddr, sizeof(raddr));

	httpproto_t hh = {
		.http_laddr = laddr, .http_raddr = raddr, .http_method = method, .http_uri = uri,
		.http_useragent = agent, .http_lport = ntohs(local->sin_port), .http_rport = ntohs(remote->sin_port),
	};
	/* the is-enabled test: nothing is prepared for the probe unless traced */
	if (HTTP_REQUEST_START_ENABLED())
		HTTP_REQUEST_START(&hh);

	char body[1200], resp[1500];
	int status = strcmp(method, "GET") == 0 ? 200 : 501;
	int blen = snprintf(body, sizeof(body), "<html><body>%s</body></html>\n", uri);
	int rlen = snprintf(resp, sizeof(resp), "HTTP/1.0 %d %s\r\nContent-Length: %d\r\n\r\n%s",
	    status, status == 200 ? "OK" : "Not Implemented", blen, body);
	ssize_t w = write(fd, resp, rlen);
	hh.http_byteswritten = w > 0 ? (uint64_t)w : 0;
	hh.http_status = status;
	if (HTTP_REQUEST_DONE_ENABLED())
		HTTP_REQUEST_DONE(&hh);
}

static void *client(void *arg)
{
	(void)arg;
	for (int i = 0; i < nreq; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			perror("connect");
			exit(1);
		}
		char req[256], resp[2048];
		int len = snprintf(req, sizeof(req), "GET /page/%d HTTP/1.0\r\nUser-Agent: httpd-selftest/1.0\r\n\r\n", i);
		if (write(fd, req, len) != len)
			exit(1);
		while (read(fd, resp, sizeof(resp)) > 0)
			;
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int self = 0, opt;
	while ((opt = getopt(argc, argv, "p:n:c")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'n': nreq = atoi(optarg); break;
		case 'c': self = 1; break;
		default:
			fprintf(stderr, "usage: httpd [-p port] [-n requests] [-c]\n");
			return 2;
		}
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 16) < 0) {
		perror("httpd: bind");
		return 1;
	}
	if (port == 0) {
		socklen_t sl = sizeof(sa);
		getsockname(ls, (struct sockaddr *)&sa, &sl);
		port = ntohs(sa.sin_port);
	}
	pthread_t t;
	if (self)
		pthread_create(&t, NULL, client, NULL);
	for (int served = 0; !self || served < nreq; served++) {
		struct sockaddr_in remote, local;
		socklen_t rl = sizeof(remote), ll = sizeof(local);
		int fd = accept(ls, (struct sockaddr *)&remote, &rl);
		if (fd < 0)
			continue;
		getsockname(fd, (struct sockaddr *)&local, &ll);
		serve(fd, &local, &remote);
		close(fd);
	}
	if (self)
		pthread_join(t, NULL);
	return 0;
}
