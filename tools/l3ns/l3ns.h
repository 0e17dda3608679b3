/* SPDX-License-Identifier: GPL-2.0 */
/*
 * l3ns: manage L3 network namespaces, the way `ip netns` manages network
 * namespaces.  A namespace NAME is pinned by a bind mount of its namespace
 * file on /run/l3ns/NAME.
 */
#ifndef L3NS_H
#define L3NS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The uapi of the L3 namespace series, for headers that predate it. */
#include <linux/if_addr.h>
#include <linux/nsfs.h>
#ifndef NS_NEW_L3NET
#define NS_NEW_L3NET		_IO(0xb7, 0x40)
#define L3NET_LOOPBACK_SHARED	0x1
#define L3NET_RAW_ALLOW		0x2
#endif
#ifndef IFA_L3NET_FD
#define IFA_L3NET_FD		(IFA_PROTO + 1)
#define IFA_L3NET_ID		(IFA_PROTO + 2)
#endif

#define L3NS_DIR	"/run/l3ns"

/* error.c: stderr gets "l3ns: WHAT: REASON"; commands return 1 then. */
int l3ns_error(const char *what, int err);
int l3ns_fail(const char *what, const char *reason);

/* pin.c: the namespaces pinned under L3NS_DIR */
bool l3ns_name_valid(const char *name);
int l3ns_create(const char *name, unsigned int flags);
int l3ns_delete(const char *name);
int l3ns_open(const char *name, int *fd, ino_t *id);
const char *l3ns_name_of(ino_t id, char *buf, size_t len);
int l3ns_identify(const char *pid);

/* pincheck.c: is NAME's pin (fd, id: from l3ns_open) the one l3ns made? */
int l3ns_pin_check(const char *name, int fd, ino_t id);

/* rundir.c: L3NS_DIR as a mount (shared here, read-only slave in exec) */
int l3ns_dir_share(void);
int l3ns_dir_confine(void);

/* exec.c: CMD in NAME, in a mount namespace of its own */
int l3ns_exec(const char *name, char **argv);

/* addr.c: addresses and their owners, over rtnetlink */
struct l3ns_prefix {
	int family;			/* AF_INET or AF_INET6 */
	unsigned char addr[16];		/* network order, 4 or 16 bytes */
	unsigned int plen;
};

/* ADDR/PLEN, IPv4 or IPv6 */
bool l3ns_parse_prefix(const char *text, struct l3ns_prefix *prefix);
/* "ADDR/PLEN" in @buf, L3NS_PREFIX_LEN bytes */
#define L3NS_PREFIX_LEN	(INET6_ADDRSTRLEN + 4)
const char *l3ns_prefix_text(const struct l3ns_prefix *prefix, char *buf);
int l3ns_addr_add(const char *name, const struct l3ns_prefix *prefix,
		  const char *dev);
int l3ns_addr_del(const char *name, const struct l3ns_prefix *prefix,
		  const char *dev);
/* name == NULL: every owned address; one_line: "NAME ADDR/PLEN ..." */
int l3ns_addr_show(const char *name, bool one_line);

#endif
