// SPDX-License-Identifier: GPL-2.0
/* l3ns: IPv4 and IPv6 addresses owned by L3 namespaces, over rtnetlink. */
#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "l3ns.h"

/* How long addr add waits for IPv6 duplicate address detection, how often it looks */
#define L3NS_DAD_WAIT_MS	10000
#define L3NS_DAD_POLL_MS	100

struct addr_req {
	struct nlmsghdr nh;
	struct ifaddrmsg ifa;
	char attrs[128];
};

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

bool l3ns_parse_prefix(const char *text, struct l3ns_prefix *prefix)
{
	char buf[L3NS_PREFIX_LEN], *slash, *end;
	unsigned long plen;

	if (strlen(text) >= sizeof(buf))
		return false;
	strcpy(buf, text);
	slash = strchr(buf, '/');
	if (!slash || !slash[1])
		return false;
	*slash = '\0';
	memset(prefix, 0, sizeof(*prefix));
	prefix->family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	errno = 0;
	plen = strtoul(slash + 1, &end, 10);
	if (*end || errno || plen > 8 * addr_len(prefix->family) ||
	    slash[1] == '-' || slash[1] == '+')
		return false;
	if (inet_pton(prefix->family, buf, prefix->addr) != 1)
		return false;
	prefix->plen = plen;
	return true;
}

const char *l3ns_prefix_text(const struct l3ns_prefix *prefix, char *buf)
{
	char addr[INET6_ADDRSTRLEN];

	if (!inet_ntop(prefix->family, prefix->addr, addr, sizeof(addr)))
		strcpy(addr, "?");
	snprintf(buf, L3NS_PREFIX_LEN, "%s/%u", addr, prefix->plen);
	return buf;
}

static void add_attr(struct nlmsghdr *nh, unsigned short type,
		     const void *data, unsigned short len)
{
	struct rtattr *rta = (void *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int rtnl_open(void)
{
	return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
}

/* Send one request and wait for its acknowledgement: 0 or a negative errno. */
static int rtnl_talk(int sock, struct nlmsghdr *nh)
{
	char buf[4096];
	ssize_t n;

	nh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(sock, nh, nh->nlmsg_len, 0) < 0)
		return -errno;
	n = recv(sock, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	for (nh = (void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	}
	return -EPROTO;
}

struct owned_addr {
	struct l3ns_prefix prefix;
	int ifindex;
	ino_t owner;
	__u32 flags;		/* IFA_F_* */
};

/*
 * Every address that an L3 namespace owns, IPv4 then IPv6; *count entries,
 * malloc'ed.
 */
static int dump_owned(int sock, struct owned_addr **list, size_t *count)
{
	struct addr_req req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.nh.nlmsg_type = RTM_GETADDR,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.ifa.ifa_family = AF_UNSPEC,
	};
	static char buf[32768];
	size_t cap = 0;

	*list = NULL;
	*count = 0;
	if (send(sock, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nh;
		ssize_t n = recv(sock, buf, sizeof(buf), 0);

		if (n < 0)
			return -errno;
		for (nh = (void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			struct ifaddrmsg *ifa = NLMSG_DATA(nh);
			struct owned_addr a = {
				.ifindex = ifa->ifa_index,
				.flags = ifa->ifa_flags,
			};
			int len = IFA_PAYLOAD(nh);
			bool local = false;
			struct rtattr *rta;

			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
				continue;
			a.prefix.family = ifa->ifa_family;
			a.prefix.plen = ifa->ifa_prefixlen;
			/* the local address: IFA_LOCAL, or IFA_ADDRESS without it (IPv6) */
			for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
				if ((rta->rta_type == IFA_LOCAL ||
				     (rta->rta_type == IFA_ADDRESS && !local)) &&
				    RTA_PAYLOAD(rta) == addr_len(a.prefix.family)) {
					memcpy(a.prefix.addr, RTA_DATA(rta), RTA_PAYLOAD(rta));
					local |= rta->rta_type == IFA_LOCAL;
				} else if (rta->rta_type == IFA_L3NET_ID) {
					a.owner = *(__u32 *)RTA_DATA(rta);
				} else if (rta->rta_type == IFA_FLAGS) {
					a.flags = *(__u32 *)RTA_DATA(rta);
				}
			}
			if (!a.owner)
				continue;
			if (*count == cap) {
				struct owned_addr *grown;

				cap = cap ? 2 * cap : 16;
				grown = realloc(*list, cap * sizeof(**list));
				if (!grown)
					return -ENOMEM;
				*list = grown;
			}
			(*list)[(*count)++] = a;
		}
	}
}

/* The request for @prefix on @ifindex; flags and owner are the caller's. */
static void addr_request(struct addr_req *req, int type,
			 const struct l3ns_prefix *prefix, int ifindex)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	req->nh.nlmsg_type = type;
	req->ifa.ifa_family = prefix->family;
	req->ifa.ifa_prefixlen = prefix->plen;
	req->ifa.ifa_index = ifindex;
	add_attr(&req->nh, IFA_LOCAL, prefix->addr, addr_len(prefix->family));
	add_attr(&req->nh, IFA_ADDRESS, prefix->addr, addr_len(prefix->family));
}

static bool same_prefix(const struct l3ns_prefix *a, const struct l3ns_prefix *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       !memcmp(a->addr, b->addr, addr_len(a->family));
}

/*
 * Does the kernel list @prefix on @ifindex as owned by @id, and with which
 * IFA_F_* @flags (unless NULL)?  0 or -errno.
 */
static int owned_by(int sock, const struct l3ns_prefix *prefix, int ifindex,
		    ino_t id, bool *found, __u32 *flags)
{
	struct owned_addr *owned;
	size_t count, i;
	int err = dump_owned(sock, &owned, &count);

	*found = false;
	for (i = 0; !err && i < count && !*found; i++) {
		*found = same_prefix(&owned[i].prefix, prefix) &&
			 owned[i].ifindex == ifindex && owned[i].owner == id;
		if (*found && flags)
			*flags = owned[i].flags;
	}
	free(owned);
	return err;
}

/*
 * A failed addr add changes nothing: the address goes again, and the error
 * says @reason, and whether removing it failed too.
 */
static int undo_add(int sock, const char *what, const struct l3ns_prefix *prefix,
		    int ifindex, const char *reason)
{
	char text[320];
	struct addr_req req;
	int undo;

	addr_request(&req, RTM_DELADDR, prefix, ifindex);
	undo = rtnl_talk(sock, &req.nh);
	snprintf(text, sizeof(text), "%s%s%s%s", reason,
		 undo ? ", and removing it failed (" : "", undo ? strerror(-undo) : "",
		 undo ? ")" : "");
	return l3ns_fail(what, text);
}

/*
 * A kernel without L3 namespaces does not know IFA_L3NET_FD.  It parses
 * RTM_NEWADDR liberally, skips the attribute, gives the address to the
 * parent and acknowledges all the same: only a dump tells who got it.
 */
static int check_owner(int sock, const char *name, const char *what,
		       const struct l3ns_prefix *prefix, int ifindex, ino_t id)
{
	char reason[256];
	bool found;
	int err;

	err = owned_by(sock, prefix, ifindex, id, &found, NULL);
	if (!err && found)
		return 0;
	if (err)
		snprintf(reason, sizeof(reason), "cannot tell its owner (%s)", strerror(-err));
	else
		snprintf(reason, sizeof(reason),
			 "kernel did not assign the address to %s (no L3 namespace support?)",
			 name);
	return undo_add(sock, what, prefix, ifindex, reason);
}

/*
 * An IPv6 address is tentative until duplicate address detection is done
 * (about a second, or two: a random delay, one solicitation, the wait for
 * an answer).  Wait for the outcome, so that a duplicate on the link is this
 * command's error, and goes again, rather than an address that silently
 * never works.  A device without carrier keeps it tentative: said, not
 * waited for.
 */
static int wait_dad(int sock, const char *name, const char *what,
		    const struct l3ns_prefix *prefix, int ifindex, ino_t id,
		    const char *dev)
{
	char reason[160];
	int err, waited;
	__u32 flags = 0;
	bool found;

	for (waited = 0; ; waited += L3NS_DAD_POLL_MS) {
		err = owned_by(sock, prefix, ifindex, id, &found, &flags);
		if (err)
			return l3ns_error("netlink", -err);
		if (!found) {
			snprintf(reason, sizeof(reason), "gone from %s on %s during duplicate address detection",
				 name, dev);
			return l3ns_fail(what, reason);
		}
		if (!(flags & IFA_F_TENTATIVE) || flags & IFA_F_DADFAILED ||
		    waited >= L3NS_DAD_WAIT_MS)
			break;
		usleep(L3NS_DAD_POLL_MS * 1000);
	}
	if (!(flags & IFA_F_TENTATIVE))
		return 0;
	if (!(flags & IFA_F_DADFAILED)) {
		fprintf(stderr, "l3ns: %s: still tentative after %d s (no duplicate address detection yet: is %s up?)\n",
			what, L3NS_DAD_WAIT_MS / 1000, dev);
		return 0;
	}
	snprintf(reason, sizeof(reason), "duplicate address detected on %s (DAD failed)", dev);
	return undo_add(sock, what, prefix, ifindex, reason);
}

static int addr_change(int type, const char *name,
		       const struct l3ns_prefix *prefix, const char *dev)
{
	struct addr_req req;
	char what[L3NS_PREFIX_LEN];
	int fd, sock, err, ifindex;
	bool found;
	ino_t id;

	l3ns_prefix_text(prefix, what);
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		return l3ns_error(dev, errno == ENXIO ? ENODEV : errno);
	err = l3ns_open(name, &fd, &id);
	if (err)
		return err;
	/* before anything changes: NAME must still be the namespace l3ns pinned */
	err = l3ns_pin_check(name, fd, id);
	if (err)
		goto out_fd;
	sock = rtnl_open();
	if (sock < 0) {
		err = l3ns_error("netlink", errno);
		goto out_fd;
	}

	addr_request(&req, type, prefix, ifindex);
	if (type == RTM_DELADDR) {
		err = owned_by(sock, prefix, ifindex, id, &found, NULL);
		if (err) {
			err = l3ns_error("netlink", -err);
			goto out_sock;
		}
		if (!found) {
			char reason[160];

			snprintf(reason, sizeof(reason), "not an address of %s on %s", name, dev);
			err = l3ns_fail(what, reason);
			goto out_sock;
		}
	} else {
		req.nh.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
		add_attr(&req.nh, IFA_L3NET_FD, &fd, sizeof(fd));
		if (prefix->family == AF_INET && prefix->plen < 31) {
			__u32 brd;

			memcpy(&brd, prefix->addr, 4);
			brd |= htonl(0xffffffffu >> prefix->plen);
			add_attr(&req.nh, IFA_BROADCAST, &brd, 4);
		}
	}

	err = rtnl_talk(sock, &req.nh);
	if (err)
		err = l3ns_error(what, -err);
	else if (type == RTM_NEWADDR)
		err = check_owner(sock, name, what, prefix, ifindex, id);
	if (!err && type == RTM_NEWADDR && prefix->family == AF_INET6)
		err = wait_dad(sock, name, what, prefix, ifindex, id, dev);
out_sock:
	close(sock);
out_fd:
	close(fd);
	return err;
}

int l3ns_addr_add(const char *name, const struct l3ns_prefix *prefix,
		  const char *dev)
{
	return addr_change(RTM_NEWADDR, name, prefix, dev);
}

int l3ns_addr_del(const char *name, const struct l3ns_prefix *prefix,
		  const char *dev)
{
	return addr_change(RTM_DELADDR, name, prefix, dev);
}

/* "NAME ADDR/PLEN ..." for every pinned namespace, in name order. */
static int list_pinned(const struct owned_addr *owned, size_t count)
{
	char text[L3NS_PREFIX_LEN];
	struct dirent **names;
	int n, i;
	size_t j;

	n = scandir(L3NS_DIR, &names, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : l3ns_error(L3NS_DIR, errno);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", L3NS_DIR, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && !stat(path, &st)) {
			printf("%s", names[i]->d_name);
			for (j = 0; j < count; j++)
				if (owned[j].owner == st.st_ino)
					printf(" %s", l3ns_prefix_text(&owned[j].prefix, text));
			printf("\n");
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

static int by_owner(const void *a, const void *b)
{
	const struct owned_addr *x = a, *y = b;

	/* then IPv4 before IPv6, and by address: the same order every time */
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->prefix.family != y->prefix.family)
		return x->prefix.family == AF_INET ? -1 : 1;
	return memcmp(x->prefix.addr, y->prefix.addr, sizeof(x->prefix.addr));
}

int l3ns_addr_show(const char *name, bool one_line)
{
	struct owned_addr *owned = NULL;
	size_t count = 0, i;
	ino_t only = 0;
	int sock, err, fd;

	if (name) {
		err = l3ns_open(name, &fd, &only);
		if (err)
			return err;
		close(fd);
	}
	sock = rtnl_open();
	if (sock < 0)
		return l3ns_error("netlink", errno);
	err = dump_owned(sock, &owned, &count);
	close(sock);
	if (err) {
		free(owned);
		return l3ns_error("netlink", -err);
	}
	qsort(owned, count, sizeof(*owned), by_owner);

	if (one_line) {
		/* every pinned namespace, with or without addresses */
		err = list_pinned(owned, count);
		free(owned);
		return err;
	}
	for (i = 0; i < count; i++) {
		char dev[IF_NAMESIZE] = "?", nsname[80], text[L3NS_PREFIX_LEN];

		if (only && owned[i].owner != only)
			continue;
		if_indextoname(owned[i].ifindex, dev);
		printf("%s %s dev %s\n", l3ns_name_of(owned[i].owner, nsname, sizeof(nsname)),
		       l3ns_prefix_text(&owned[i].prefix, text), dev);
	}
	free(owned);
	return 0;
}
