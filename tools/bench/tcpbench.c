// SPDX-License-Identifier: GPL-2.0
/*
 * tcpbench: the load of make bench-l3 between two processes: TCP
 * request/response rate and stream throughput, and UDP request/response
 * rate.  netperf (TCP_RR, UDP_RR) is not in Debian and iperf3 has no
 * request/response mode, so this measures them all the same way.
 *
 *   tcpbench server PORT             serve TCP (fork per client) and UDP
 *                                    on PORT, IPv4 and IPv6, until killed
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
 * ADDR is IPv4 or IPv6.  The server has a socket of each family for each
 * protocol (IPv6 ones IPV6_V6ONLY), so that IPv4 is measured on AF_INET
 * sockets, not v4-mapped ones.  The UDP server answers each datagram with
 * sendto() to its source from a socket bound to the wildcard address: like
 * the unconnected client, it has the kernel pick a route and a source
 * address for every datagram, the per-packet path that a confined socket
 * adds its checks to.
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

/* A socket of @family and @type bound to the wildcard address and @port */
static int wildcard_socket(int family, int type, int port)
{
	struct sockaddr_storage ss = { .ss_family = family };
	int one = 1, fd = socket(family, type, 0);
	socklen_t len;

	if (fd < 0) {
		die("socket");
		return -1;
	}
	if (family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		len = sizeof(struct sockaddr_in6);
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	} else {
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		len = sizeof(struct sockaddr_in);
	}
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 16))) {
		die("bind");
		close(fd);
		return -1;
	}
	return fd;
}

/* Answer every datagram to its source, until killed. */
static int serve_udp(int family, int port)
{
	static char buf[CHUNK];
	int fd = wildcard_socket(family, SOCK_DGRAM, port);

	if (fd < 0)
		return 1;
	for (;;) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);

		if (n > 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, len);
	}
}

static int serve_tcp(int family, int port)
{
	int one = 1, lfd = wildcard_socket(family, SOCK_STREAM, port), fd;

	if (lfd < 0)
		return 1;
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

/* TCP and UDP, IPv4 and IPv6: one process each, none of them returns. */
static int serve(int port)
{
	static const int families[] = { AF_INET, AF_INET6 };
	int i;

	signal(SIGCHLD, SIG_IGN);
	for (i = 0; i < 2; i++) {
		if (fork() == 0)
			_exit(serve_udp(families[i], port));
	}
	if (fork() == 0)
		_exit(serve_tcp(AF_INET6, port));
	return serve_tcp(AF_INET, port);
}

/* @addr, IPv4 or IPv6, and @port: the length of the sockaddr, or 0 */
static socklen_t parse_addr(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	fprintf(stderr, "tcpbench: %s: not an IPv4 or IPv6 address\n", addr);
	return 0;
}

/* Is @a, a datagram's source, the address @b? */
static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((struct sockaddr_in6 *)a)->sin6_addr,
			       &((struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return ((struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((struct sockaddr_in *)b)->sin_addr.s_addr;
}

static int dial(const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(addr, port, &ss);
	int one = 1, fd;

	if (!len)
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len)) {
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
	struct sockaddr_storage to;
	socklen_t to_len = parse_addr(addr, port, &to);
	double start, end;
	unsigned long n = 0;
	char c = 'x';
	int fd;

	if (!to_len)
		return 1;
	fd = socket(to.ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		return die("udp socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (connected && connect(fd, (struct sockaddr *)&to, to_len))
		return die(addr);
	start = now();
	end = start + seconds;
	while (now() < end) {
		int i;

		for (i = 0; i < 100; i++, n++) {
			struct sockaddr_storage from;
			socklen_t len = sizeof(from);

			if (connected ? send(fd, &c, 1, 0) != 1 :
			    sendto(fd, &c, 1, 0, (struct sockaddr *)&to, to_len) != 1)
				return die("udp send");
			if (connected ? recv(fd, &c, 1, 0) != 1 :
			    recvfrom(fd, &c, 1, 0, (struct sockaddr *)&from, &len) != 1)
				return die(errno == EAGAIN ? "udp: no reply within 1 s" : "udp recv");
			if (!connected && !same_addr(&from, &to)) {
				fprintf(stderr, "tcpbench: a reply from another address than %s\n",
					addr);
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
