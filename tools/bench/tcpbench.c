// SPDX-License-Identifier: GPL-2.0
/*
 * tcpbench: the load of make bench-l3 between two processes: TCP
 * request/response rate and stream throughput, and UDP request/response
 * rate.  netperf (TCP_RR, UDP_RR) is not in Debian and iperf3 has no
 * request/response mode, so this measures them all the same way.
 *
 *   tcpbench server PORT             serve TCP (fork per client) and UDP
 *                                    on PORT until killed
 *   tcpbench rr ADDR PORT SECONDS    1-byte ping-pong; prints transactions/s
 *   tcpbench stream ADDR PORT SECONDS
 *                                    64 KiB writes; prints MiB/s
 *   tcpbench udp-rr ADDR PORT SECONDS
 *                                    1-byte ping-pong on a connected UDP
 *                                    socket; prints transactions/s
 *   tcpbench udp-sendto ADDR PORT SECONDS
 *                                    the same with sendto() and recvfrom()
 *                                    on an unbound, unconnected socket
 *
 * The UDP server answers each datagram with sendto() to its source from a
 * socket bound to 0.0.0.0: like the unconnected client, it has the kernel
 * pick a route and a source address for every datagram, the per-packet
 * path that a confined socket adds its checks to.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536

static int die(const char *what)
{
	fprintf(stderr, "tcpbench: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Echo each byte of a ping-pong, or swallow a stream, until EOF. */
static void serve_one(int fd)
{
	static char buf[CHUNK];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (n == 1 && write(fd, buf, 1) != 1)
			break;
	}
	close(fd);
}

/* Answer every datagram to its source, until killed. */
static int serve_udp(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	static char buf[CHUNK];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return die("udp socket");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		return die("udp bind");
	for (;;) {
		struct sockaddr_in from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);

		if (n > 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, len);
	}
}

static int serve(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, lfd, fd;

	signal(SIGCHLD, SIG_IGN);
	/* UDP in a child: the TCP loop below never returns either. */
	if (fork() == 0)
		_exit(serve_udp(port));
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 16))
		return die("bind");
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(lfd);
			serve_one(fd);
			_exit(0);
		}
		close(fd);
	}
}

static int parse_addr(const char *addr, int port, struct sockaddr_in *sin)
{
	*sin = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port) };
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "tcpbench: %s: not an IPv4 address\n", addr);
		return -1;
	}
	return 0;
}

static int dial(const char *addr, int port)
{
	struct sockaddr_in sin;
	int one = 1, fd;

	if (parse_addr(addr, port, &sin))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		die(addr);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int rr(int fd, double seconds)
{
	double start = now(), end = start + seconds;
	unsigned long n = 0;
	char c = 'x';

	while (now() < end) {
		int i;

		for (i = 0; i < 100; i++, n++) {
			if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
				return die("rr");
		}
	}
	printf("%.0f\n", n / (now() - start));
	return 0;
}

static int stream(int fd, double seconds)
{
	static char buf[CHUNK];
	double start = now(), end = start + seconds;
	unsigned long long bytes = 0;

	memset(buf, 'x', sizeof(buf));
	while (now() < end) {
		ssize_t n = write(fd, buf, sizeof(buf));

		if (n <= 0)
			return die("stream");
		bytes += n;
	}
	printf("%.1f\n", bytes / (now() - start) / (1 << 20));
	return 0;
}

/*
 * 1-byte ping-pong over UDP, connected or with sendto() every time.  Nothing
 * should be lost on a path inside one host; a reply that does not come
 * within a second (or comes from another address: the server answered
 * from a source it should not use) ends the run with an error rather than
 * a rate that hides it.
 */
static int udp_rr(const char *addr, int port, double seconds, bool connected)
{
	struct timeval limit = { .tv_sec = 1 };
	struct sockaddr_in to;
	double start, end;
	unsigned long n = 0;
	char c = 'x';
	int fd;

	if (parse_addr(addr, port, &to))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return die("udp socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (connected && connect(fd, (struct sockaddr *)&to, sizeof(to)))
		return die(addr);
	start = now();
	end = start + seconds;
	while (now() < end) {
		int i;

		for (i = 0; i < 100; i++, n++) {
			struct sockaddr_in from;
			socklen_t len = sizeof(from);

			if (connected ? send(fd, &c, 1, 0) != 1 :
			    sendto(fd, &c, 1, 0, (struct sockaddr *)&to, sizeof(to)) != 1)
				return die("udp send");
			if (connected ? recv(fd, &c, 1, 0) != 1 :
			    recvfrom(fd, &c, 1, 0, (struct sockaddr *)&from, &len) != 1)
				return die(errno == EAGAIN ? "udp: no reply within 1 s" : "udp recv");
			if (!connected && from.sin_addr.s_addr != to.sin_addr.s_addr) {
				fprintf(stderr, "tcpbench: reply from %s, not %s\n",
					inet_ntoa(from.sin_addr), addr);
				return 1;
			}
		}
	}
	printf("%.0f\n", n / (now() - start));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, err;

	if (argc == 3 && !strcmp(argv[1], "server"))
		return serve(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "udp-rr"))
		return udp_rr(argv[2], atoi(argv[3]), atof(argv[4]), true);
	if (argc == 5 && !strcmp(argv[1], "udp-sendto"))
		return udp_rr(argv[2], atoi(argv[3]), atof(argv[4]), false);
	if (argc != 5 || (strcmp(argv[1], "rr") && strcmp(argv[1], "stream"))) {
		fprintf(stderr, "usage: tcpbench server PORT\n"
				"       tcpbench rr|stream|udp-rr|udp-sendto ADDR PORT SECONDS\n");
		return 2;
	}
	fd = dial(argv[2], atoi(argv[3]));
	if (fd < 0)
		return 1;
	err = argv[1][0] == 'r' ? rr(fd, atof(argv[4])) : stream(fd, atof(argv[4]));
	close(fd);
	return err;
}
