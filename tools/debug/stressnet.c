// SPDX-License-Identifier: GPL-2.0
/*
 * stressnet: the network load of make stress-l3, in one static binary.
 * A cycle of the stress runs a dozen of these; socat would load OpenSSL at
 * every start, most of a cycle on a KASAN kernel under TCG.
 *
 *   stressnet serve tcp|udp PORT TEXT    answer every TCP connection or
 *                                        UDP datagram to 0.0.0.0:PORT with
 *                                        TEXT ("@peer": the peer's
 *                                        address), until killed
 *   stressnet ask tcp|udp ADDR PORT      print the answer of ADDR:PORT
 *                                        (connected UDP); retries for 10 s
 *                                        while refused or unanswered
 *   stressnet send ADDR PORT TEXT        one UDP datagram, no answer
 *   stressnet listen ADDR PORT           print every UDP datagram to
 *                                        ADDR:PORT, one per line
 *
 * Exit: 0 done, 1 a socket call failed (named on stderr, prefixed
 * "stressnet: "), 2 usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define TRIES 50		/* 10 s of tries ... */
#define TRY_GAP_US 200000	/* ... 0.2 s apart */

static int fail(const char *what)
{
	fprintf(stderr, "stressnet: %s: %s\n", what, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: stressnet serve tcp|udp PORT TEXT\n"
			"       stressnet ask tcp|udp ADDR PORT\n"
			"       stressnet send ADDR PORT TEXT\n"
			"       stressnet listen ADDR PORT\n");
	return 2;
}

static int address(const char *addr, const char *port, struct sockaddr_in *sin)
{
	char *end;
	long p = strtol(port, &end, 10);

	*sin = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(p) };
	if (*end || p < 1 || p > 65535 || inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "stressnet: %s:%s: not an IPv4 address and port\n", addr, port);
		return -1;
	}
	return 0;
}

static int bound_socket(int type, const char *addr, const char *port)
{
	struct sockaddr_in sin;
	int one = 1, fd;

	if (address(addr, port, &sin))
		return -1;
	fd = socket(AF_INET, type, 0);
	if (fd < 0) {
		fail("socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    (type == SOCK_STREAM && listen(fd, 16))) {
		fail(addr);
		close(fd);
		return -1;
	}
	return fd;
}

/* TEXT, or the peer's address for "@peer", and a newline. */
static int answer(const char *text, const struct sockaddr_in *peer, char *buf, size_t len)
{
	if (!strcmp(text, "@peer"))
		text = inet_ntoa(peer->sin_addr);
	return snprintf(buf, len, "%s\n", text);
}

static int serve(int type, const char *port, const char *text)
{
	int fd = bound_socket(type, "0.0.0.0", port);
	char in[512], out[512];

	if (fd < 0)
		return 1;
	for (;;) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		int c, n;

		if (type == SOCK_DGRAM) {
			if (recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&peer, &len) < 0)
				continue;
			n = answer(text, &peer, out, sizeof(out));
			sendto(fd, out, n, 0, (struct sockaddr *)&peer, len);
			continue;
		}
		c = accept(fd, (struct sockaddr *)&peer, &len);
		if (c < 0)
			continue;
		n = answer(text, &peer, out, sizeof(out));
		if (write(c, out, n) != n)
			fail("write");
		close(c);
	}
}

/* One try: 0 with the answer printed, -1 to try again, 1 to give up. */
static int ask_once(int type, const struct sockaddr_in *to)
{
	struct timeval limit = { .tv_sec = 1 };
	char buf[512];
	ssize_t n, got = 0;
	int fd = socket(AF_INET, type, 0);

	if (fd < 0)
		return fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to))) {
		close(fd);
		return errno == ECONNREFUSED ? -1 : fail("connect");
	}
	if (type == SOCK_DGRAM && send(fd, "?", 1, 0) != 1) {
		close(fd);
		return errno == ECONNREFUSED ? -1 : fail("send");
	}
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0) {
		got += n;
		if (type == SOCK_DGRAM || got == sizeof(buf) - 1)
			break;
	}
	close(fd);
	if (n < 0 && !got)
		return errno == ECONNREFUSED || errno == EAGAIN ? -1 : fail("read");
	fwrite(buf, 1, got, stdout);
	return 0;
}

static int ask(int type, const char *addr, const char *port)
{
	struct sockaddr_in to;
	int i, err = -1;

	if (address(addr, port, &to))
		return 1;
	for (i = 0; i < TRIES && err < 0; i++) {
		err = ask_once(type, &to);
		if (err < 0)
			usleep(TRY_GAP_US);
	}
	if (err < 0)
		fprintf(stderr, "stressnet: %s:%s: no answer in %d tries\n", addr, port, TRIES);
	return err ? 1 : 0;
}

static int send_one(const char *addr, const char *port, const char *text)
{
	struct sockaddr_in to;
	int fd;

	if (address(addr, port, &to))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return fail("socket");
	if (sendto(fd, text, strlen(text), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return fail(addr);
	close(fd);
	return 0;
}

static int listen_udp(const char *addr, const char *port)
{
	int fd = bound_socket(SOCK_DGRAM, addr, port);
	char buf[512];
	ssize_t n;

	if (fd < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((n = recv(fd, buf, sizeof(buf), 0)) >= 0)
		printf("%.*s\n", (int)n, buf);
	return fail("recv");
}

static int type_of(const char *name)
{
	return !strcmp(name, "tcp") ? SOCK_STREAM : !strcmp(name, "udp") ? SOCK_DGRAM : -1;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 5 && !strcmp(argv[1], "serve") && type_of(argv[2]) > 0)
		return serve(type_of(argv[2]), argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "ask") && type_of(argv[2]) > 0)
		return ask(type_of(argv[2]), argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "send"))
		return send_one(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return listen_udp(argv[2], argv[3]);
	return usage();
}
