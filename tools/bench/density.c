// SPDX-License-Identifier: GPL-2.0
/*
 * density: the guest side of make bench-density (userland/run/bench-density):
 * one small service per isolated unit, the check that each answers as
 * itself, and the wait until the parent has every address back.
 *
 *   density serve PORT TAG [ADDR...]
 *                                serve TCP and UDP, IPv4 and IPv6, on the
 *                                wildcard addresses (or on each ADDR) and
 *                                PORT, in one process: "?" is answered with
 *                                TAG and a newline, any other single byte
 *                                is echoed (tcpbench rr and udp-rr), until
 *                                killed; it returns once listening, the
 *                                server's process id on stdout
 *   density enter FILE CMD [ARG...]
 *                                CMD in the namespace of FILE (setns, no
 *                                new mount namespace)
 *   density check PORT LIST SECONDS
 *                                every ADDR of LIST answers its TAG over TCP
 *                                and UDP within SECONDS (services still
 *                                starting are tried again)
 *   density free PORT LIST SECONDS [DEVICE]
 *                                wait until every ADDR of LIST can be used
 *                                by the caller: bound (TCP, SO_REUSEADDR,
 *                                and UDP) on PORT, or, with DEVICE,
 *                                assigned to it and removed again
 *   density gone SECONDS NAME... wait until no device NAME exists here
 *   density netkit NAME PEER NSFILE
 *                                a netkit pair (L3 mode): NAME here, PEER in
 *                                the network namespace of NSFILE (what
 *                                `ip link add NAME type netkit peer name
 *                                PEER netns NS` does with iproute2 6.7)
 *   density now                  CLOCK_MONOTONIC in microseconds
 *
 * LIST is a file of lines "TAG ADDR..." (IPv4 or IPv6 addresses).  The
 * client closes a TCP connection first, so a TIME_WAIT left behind is the
 * parent's, never a service's.  Errors are one line, exit 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS	64
#define MAX_ADDRS	8
#define MAX_LISTEN	(2 * MAX_ADDRS)

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("density: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void pause_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* @text and @port as a socket address; its length, or 0 if not an address */
static socklen_t sockaddr_of(const char *text, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	return 0;
}

/* A socket of @type bound to @ss (SO_REUSEADDR for TCP), or -1 with errno */
static int bound_socket(const struct sockaddr_storage *ss, socklen_t len, int type)
{
	int one = 1, fd = socket(ss->ss_family, type | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return -1;
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) == 0)
		return fd;
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* ---------------------------------------------------------------- serve */

static void answer(int fd, const char *buf, ssize_t n, const char *tag,
		   const struct sockaddr_storage *to, socklen_t tolen)
{
	char reply[128];
	size_t len;

	if (n == 1 && buf[0] == '?')
		len = snprintf(reply, sizeof(reply), "%s\n", tag);
	else if (n == 1)
		len = 1, reply[0] = buf[0];
	else
		return;
	if (to)
		sendto(fd, reply, len, 0, (const struct sockaddr *)to, tolen);
	else if (write(fd, reply, len) < 0)
		return;
}

/*
 * The listening sockets of serve: TCP and UDP on each of @addrs, or on both
 * wildcard addresses; their count, or -1 after saying why.
 */
static int listen_all(int port, const char *tag, char **addrs, int naddrs, struct pollfd *pfd)
{
	static const char *const wildcards[] = { "0.0.0.0", "::" };
	int i, type, n = 0;

	if (!naddrs) {
		addrs = (char **)wildcards;
		naddrs = 2;
	}
	if (naddrs > MAX_ADDRS)
		return fail("%s: more than %d addresses", tag, MAX_ADDRS), -1;
	for (type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
		for (i = 0; i < naddrs; i++) {
			struct sockaddr_storage ss;
			socklen_t len = sockaddr_of(addrs[i], port, &ss);
			int fd = len ? bound_socket(&ss, len, type) : -1;

			if (!len)
				return fail("%s: not an address", addrs[i]), -1;
			if (fd < 0 || (type == SOCK_STREAM && listen(fd, 64)))
				return fail("%s: %s %s port %d: %s", tag,
					    type == SOCK_STREAM ? "TCP" : "UDP", addrs[i], port,
					    strerror(errno)), -1;
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		}
	}
	return n;
}

static int serve(int port, const char *tag, char **addrs, int naddrs)
{
	struct pollfd pfd[MAX_LISTEN + MAX_CONNS];
	int nlisten, ntcp, n, i, one = 1;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	nlisten = listen_all(port, tag, addrs, naddrs, pfd);
	if (nlisten < 0)
		return 1;
	/* Listening already: the caller goes on once this returns. */
	pid = fork();
	if (pid < 0)
		return fail("%s: fork: %s", tag, strerror(errno));
	if (pid > 0) {
		printf("%d\n", (int)pid);
		return 0;
	}
	setsid();
	i = open("/dev/null", O_RDWR);
	if (i >= 0) {
		dup2(i, 0);
		dup2(i, 1);
		dup2(i, 2);
		if (i > 2)
			close(i);
	}
	ntcp = nlisten / 2;	/* the TCP listeners come first */
	n = nlisten;
	for (;;) {
		if (poll(pfd, n, -1) < 0)
			continue;
		for (i = 0; i < n; i++) {
			char buf[256];
			ssize_t got;

			if (!pfd[i].revents)
				continue;
			if (i < ntcp) {
				int fd = accept4(pfd[i].fd, NULL, NULL, SOCK_CLOEXEC);

				if (fd < 0)
					continue;
				if (n == MAX_LISTEN + MAX_CONNS) {
					close(fd);
					continue;
				}
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
			} else if (i < nlisten) {	/* UDP */
				struct sockaddr_storage from;
				socklen_t len = sizeof(from);

				got = recvfrom(pfd[i].fd, buf, sizeof(buf), 0,
					       (struct sockaddr *)&from, &len);
				answer(pfd[i].fd, buf, got, tag, &from, len);
			} else {		/* a TCP connection */
				got = read(pfd[i].fd, buf, sizeof(buf));
				if (got > 0) {
					answer(pfd[i].fd, buf, got, tag, NULL, 0);
					continue;
				}
				close(pfd[i].fd);
				pfd[i--] = pfd[--n];
			}
		}
	}
}

static int enter(const char *file, char **argv)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, 0))
		return fail("%s: %s", file, strerror(errno));
	close(fd);
	execvp(argv[0], argv);
	return fail("%s: %s", argv[0], strerror(errno));
}

/* ---------------------------------------------------------------- check */

/* One address's answer to "?" over TCP or UDP into @reply; 0 or an errno */
static int ask(const struct sockaddr_storage *ss, socklen_t len, int type, char *reply,
	       size_t size)
{
	struct timeval limit = { .tv_sec = 1 };
	int fd = socket(ss->ss_family, type | SOCK_CLOEXEC, 0), err = 0;
	ssize_t got = 0, n;

	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (connect(fd, (const struct sockaddr *)ss, len) || write(fd, "?", 1) != 1) {
		err = errno;
		goto out;
	}
	while ((size_t)got < size - 1 && (n = read(fd, reply + got, size - 1 - got)) > 0) {
		got += n;
		if (reply[got - 1] == '\n' || type == SOCK_DGRAM)
			break;
	}
	if (got <= 0)
		err = got < 0 && errno != EAGAIN ? errno : ETIMEDOUT;
	reply[got > 0 ? got - (reply[got - 1] == '\n') : 0] = '\0';
out:
	close(fd);	/* the client closes first: TIME_WAIT stays on this side */
	return err;
}

/* A line of LIST: its tag and addresses; 0 at the end of the file */
static int next_service(FILE *f, char *tag, size_t size, char addrs[][INET6_ADDRSTRLEN],
			int *naddrs)
{
	char line[512], *word, *save;

	while (fgets(line, sizeof(line), f)) {
		word = strtok_r(line, " \t\n", &save);
		if (!word)
			continue;
		snprintf(tag, size, "%s", word);
		for (*naddrs = 0; *naddrs < MAX_ADDRS && (word = strtok_r(NULL, " \t\n", &save));)
			snprintf(addrs[(*naddrs)++], INET6_ADDRSTRLEN, "%s", word);
		return 1;
	}
	return 0;
}

static int check(int port, const char *list, double seconds)
{
	long long deadline = now_us() + seconds * 1e6;
	char tag[64], reply[128], addrs[MAX_ADDRS][INET6_ADDRSTRLEN];
	int naddrs, i, type, err, services = 0;
	FILE *f = fopen(list, "r");

	if (!f)
		return fail("%s: %s", list, strerror(errno));
	while (next_service(f, tag, sizeof(tag), addrs, &naddrs)) {
		for (i = 0; i < naddrs; i++) {
			struct sockaddr_storage ss;
			socklen_t len = sockaddr_of(addrs[i], port, &ss);

			if (!len)
				return fail("%s: %s: not an address", list, addrs[i]);
			for (type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
				while ((err = ask(&ss, len, type, reply, sizeof(reply))) &&
				       now_us() < deadline)
					pause_ms(10);
				if (err)
					return fail("%s %s port %d: %s", addrs[i],
						    type == SOCK_STREAM ? "TCP" : "UDP", port,
						    strerror(err));
				if (strcmp(reply, tag))
					return fail("%s %s port %d answered '%s', not '%s'", addrs[i],
						    type == SOCK_STREAM ? "TCP" : "UDP", port, reply,
						    tag);
			}
		}
		services++;
	}
	fclose(f);
	printf("%d services answered\n", services);
	return 0;
}

/* ------------------------------------------------------------ netlink */

/* Append attribute @type (@len bytes of @data) at the end of @nh; with
 * @len 0, a nest that nl_end() closes.
 */
static struct rtattr *nl_put(struct nlmsghdr *nh, int type, const void *data, int len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void nl_end(struct nlmsghdr *nh, struct rtattr *nest)
{
	nest->rta_len = (char *)nh + nh->nlmsg_len - (char *)nest;
}

/* Send @nh on @nl and read its acknowledgement: 0 or an errno */
static int nl_request(int nl, const struct nlmsghdr *nh)
{
	char buf[512];
	ssize_t n;

	if (send(nl, nh, nh->nlmsg_len, 0) < 0)
		return errno;
	n = recv(nl, buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return n < 0 ? errno : EPROTO;
	return -((struct nlmsgerr *)NLMSG_DATA((struct nlmsghdr *)buf))->error;
}

/* ---------------------------------------------------------------- free */

/* RTM_NEWADDR or RTM_DELADDR of @ss/@plen on @ifindex; 0 or an errno */
static int rtm_addr(int nl, int cmd, int ifindex, const struct sockaddr_storage *ss)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attrs[64];
	} req = {
		.nh.nlmsg_type = cmd,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
				  (cmd == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.ifa.ifa_family = ss->ss_family,
		.ifa.ifa_index = ifindex,
	};
	const void *addr = ss->ss_family == AF_INET ?
			   (const void *)&((const struct sockaddr_in *)ss)->sin_addr :
			   (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	int alen = ss->ss_family == AF_INET ? 4 : 16;
	/* the whole request, attributes included, for the compiler's bounds */
	struct nlmsghdr *nh = (struct nlmsghdr *)&req;
	__u32 flags = IFA_F_NODAD;

	req.ifa.ifa_prefixlen = alen * 8;
	nl_put(nh, IFA_LOCAL, addr, alen);
	nl_put(nh, IFA_FLAGS, &flags, sizeof(flags));
	return nl_request(nl, nh);
}

/* Whether the caller can use @ss now: bind it, or assign it to @ifindex */
static int usable(int nl, int ifindex, const struct sockaddr_storage *ss, socklen_t len)
{
	int fd, type;

	if (ifindex) {
		if (rtm_addr(nl, RTM_NEWADDR, ifindex, ss))
			return 0;
		rtm_addr(nl, RTM_DELADDR, ifindex, ss);
		return 1;
	}
	for (type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
		fd = bound_socket(ss, len, type);
		if (fd < 0)
			return 0;
		close(fd);
	}
	return 1;
}

static int free_addrs(int port, const char *list, double seconds, int ifindex)
{
	long long deadline = now_us() + seconds * 1e6;
	char tag[64], addrs[MAX_ADDRS][INET6_ADDRSTRLEN];
	int naddrs, i, nl = -1;
	FILE *f = fopen(list, "r");

	if (!f)
		return fail("%s: %s", list, strerror(errno));
	if (ifindex && (nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return fail("netlink: %s", strerror(errno));
	while (next_service(f, tag, sizeof(tag), addrs, &naddrs)) {
		for (i = 0; i < naddrs; i++) {
			struct sockaddr_storage ss;
			socklen_t len = sockaddr_of(addrs[i], port, &ss);

			if (!len)
				return fail("%s: %s: not an address", list, addrs[i]);
			while (!usable(nl, ifindex, &ss, len)) {
				if (now_us() >= deadline)
					return fail("%s (%s) is not usable after %g s", addrs[i],
						    tag, seconds);
				pause_ms(1);
			}
		}
	}
	fclose(f);
	return 0;
}

static int gone(double seconds, char **names, int count)
{
	long long deadline = now_us() + seconds * 1e6;
	int i;

	for (i = 0; i < count; i++) {
		while (if_nametoindex(names[i])) {
			if (now_us() >= deadline)
				return fail("device %s still exists after %g s", names[i], seconds);
			pause_ms(1);
		}
	}
	return 0;
}

/* -------------------------------------------------------------- netkit */

/* The netkit netlink attributes (linux/if_link.h of Linux 6.7). */
#define NETKIT_INFO_PEER	1	/* IFLA_NETKIT_PEER_INFO */

static int netkit(const char *name, const char *peer, const char *nsfile)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[256];
	} req = {
		.nh.nlmsg_type = RTM_NEWLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
	};
	struct nlmsghdr *nh = (struct nlmsghdr *)&req;
	struct ifinfomsg peer_ifi = {};
	struct rtattr *linkinfo, *data, *peer_info;
	int nsfd, nl, err;

	nsfd = open(nsfile, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return fail("%s: %s", nsfile, strerror(errno));
	nl_put(nh, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = nl_put(nh, IFLA_LINKINFO, NULL, 0);
	nl_put(nh, IFLA_INFO_KIND, "netkit", sizeof("netkit"));
	data = nl_put(nh, IFLA_INFO_DATA, NULL, 0);
	peer_info = nl_put(nh, NETKIT_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
	nl_put(nh, IFLA_IFNAME, peer, strlen(peer) + 1);
	nl_put(nh, IFLA_NET_NS_FD, &nsfd, sizeof(nsfd));
	nl_end(nh, peer_info);
	nl_end(nh, data);
	nl_end(nh, linkinfo);

	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	err = nl < 0 ? errno : nl_request(nl, nh);
	if (nl >= 0)
		close(nl);
	close(nsfd);
	return err ? fail("netkit %s: %s", name, strerror(err)) : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), argv[3], argv + 4, argc - 4);
	if (argc >= 4 && !strcmp(argv[1], "enter"))
		return enter(argv[2], argv + 3);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(atoi(argv[2]), argv[3], atof(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "free"))
		return free_addrs(atoi(argv[2]), argv[3], atof(argv[4]), 0);
	if (argc == 6 && !strcmp(argv[1], "free")) {
		int ifindex = if_nametoindex(argv[5]);

		if (!ifindex)
			return fail("%s: no such device", argv[5]);
		return free_addrs(atoi(argv[2]), argv[3], atof(argv[4]), ifindex);
	}
	if (argc >= 3 && !strcmp(argv[1], "gone"))
		return gone(atof(argv[2]), argv + 3, argc - 3);
	if (argc == 5 && !strcmp(argv[1], "netkit"))
		return netkit(argv[2], argv[3], argv[4]);
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now_us());
		return 0;
	}
	fprintf(stderr, "usage: density serve PORT TAG [ADDR...]\n"
			"       density enter FILE CMD [ARG...]\n"
			"       density check PORT LIST SECONDS\n"
			"       density free PORT LIST SECONDS [DEVICE]\n"
			"       density gone SECONDS NAME...\n"
			"       density netkit NAME PEER NSFILE\n"
			"       density now\n");
	return 2;
}
