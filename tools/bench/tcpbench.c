// SPDX-License-Identifier: GPL-2.0
/*
 * tcpbench: TCP request/response rate and stream throughput between two
 * processes, for make bench-l3.  netperf (TCP_RR) is not in Debian and
 * iperf3 has no request/response mode, so this measures both the same way.
 *
 *   tcpbench server PORT             serve until killed (fork per client)
 *   tcpbench rr ADDR PORT SECONDS    1-byte ping-pong; prints transactions/s
 *   tcpbench stream ADDR PORT SECONDS
 *                                    64 KiB writes; prints MiB/s
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static int serve(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, lfd, fd;

	signal(SIGCHLD, SIG_IGN);
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

static int dial(const char *addr, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "tcpbench: %s: not an IPv4 address\n", addr);
		return -1;
	}
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

int main(int argc, char **argv)
{
	int fd, err;

	if (argc == 3 && !strcmp(argv[1], "server"))
		return serve(atoi(argv[2]));
	if (argc != 5 || (strcmp(argv[1], "rr") && strcmp(argv[1], "stream"))) {
		fprintf(stderr, "usage: tcpbench server PORT\n"
				"       tcpbench rr|stream ADDR PORT SECONDS\n");
		return 2;
	}
	fd = dial(argv[2], atoi(argv[3]));
	if (fd < 0)
		return 1;
	err = argv[1][0] == 'r' ? rr(fd, atof(argv[4])) : stream(fd, atof(argv[4]));
	close(fd);
	return err;
}
