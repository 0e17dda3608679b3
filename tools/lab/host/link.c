// SPDX-License-Identifier: GPL-2.0
/*
 * Link steps: link-down and link-up switch a NIC's carrier through QEMU's
 * QMP (set_link: the guest sees its link go down, as for a pulled cable),
 * link-set changes a relayed wire's impairments.  Run between tests, in
 * file order, and from lab shell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

#define QMP_TIMEOUT_MS	5000

/*
 * The next line from QMP socket FD that is not an event, into BUF; -1 on
 * timeout or a closed socket.
 */
static int qmp_reply(int fd, char *buf, size_t size, long deadline_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	char *nl;
	ssize_t r;

	for (;;) {
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (!strstr(buf, "\"event\""))
				return 0;
			len -= nl + 1 - buf;
			memmove(buf, nl + 1, len);
		}
		if (len + 1 >= size || lab_now_ms() >= deadline_ms)
			return -1;
		r = poll(&pfd, 1, deadline_ms - lab_now_ms());
		if (r < 0 && errno == EINTR)
			continue;	/* a signal: the caller's lab_pump names it */
		if (r <= 0)
			return -1;
		r = read(fd, buf + len, size - 1 - len);
		if (r <= 0)
			return -1;
		len += r;
		buf[len] = '\0';
	}
}

/* One QMP command on node N; 0, or -1 with the reason in WHY. */
static int qmp(struct lab *l, int n, const char *command, char *why, size_t size)
{
	static const char hello[] = "{\"execute\": \"qmp_capabilities\"}\n";
	long deadline = lab_now_ms() + QMP_TIMEOUT_MS;
	struct sockaddr_un sa;
	char path[4096], reply[4096];
	int fd, rc = -1;

	snprintf(path, sizeof(path), "%s/%s.qmp", l->o->qemu.run_dir, l->t->nodes[n].name);
	if (lab_sock_path(&sa, path))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(why, size, "QMP %s: %s", path, strerror(errno));
		goto out;
	}
	/* The greeting, then capabilities negotiation, then the command. */
	if (qmp_reply(fd, reply, sizeof(reply), deadline) ||
	    write(fd, hello, strlen(hello)) < 0 ||
	    qmp_reply(fd, reply, sizeof(reply), deadline) ||
	    write(fd, command, strlen(command)) < 0 ||
	    qmp_reply(fd, reply, sizeof(reply), deadline)) {
		snprintf(why, size, "QEMU did not answer on %s", path);
		goto out;
	}
	if (!strstr(reply, "\"return\"")) {
		snprintf(why, size, "QEMU refused %.*s: %.200s", (int)strcspn(command, "\n"),
			 command, reply);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The carrier of node N's NIC PORT, on or off. */
static int set_carrier(struct lab *l, int n, int port, int up, char *why, size_t size)
{
	char command[128];

	snprintf(command, sizeof(command),
		 "{\"execute\": \"set_link\", \"arguments\": {\"name\": \"n%d\", \"up\": %s}}\n",
		 port, up ? "true" : "false");
	return qmp(l, n, command, why, size);
}

/*
 * A cable pulled at one end: that NIC loses its carrier, and on a link
 * (two ends, one cable) the other end's NIC too; on a lan, only that port.
 */
static int link_carrier(struct lab *l, const struct topo_test *tt, int up, char *why,
			size_t size)
{
	const struct topo_port *p = &l->t->nodes[tt->node].ports[tt->port];
	const struct topo_wire *w = &l->t->wires[p->wire];
	const struct topo_endpoint *other;
	int i;

	if (set_carrier(l, tt->node, tt->port, up, why, size))
		return -1;
	if (w->is_lan)
		return 0;
	other = &w->members[!p->member];
	for (i = 0; i < l->t->nodes[other->node].nports; i++)
		if (!strcmp(l->t->nodes[other->node].ports[i].ifname, other->ifname))
			return set_carrier(l, other->node, i, up, why, size);
	return 0;
}

static int link_set(struct lab *l, const struct topo_test *tt, char *why, size_t size)
{
	int w = l->t->nodes[tt->node].ports[tt->port].wire, m, to;
	struct hub *h = hub_of_wire(l, w);
	struct fault f;
	const char *bad;

	if (!h) {
		snprintf(why, size, "%s:%s is on a wire the launcher does not relay (lab shell relays every wire)",
			 l->t->nodes[tt->node].name, l->t->nodes[tt->node].ports[tt->port].ifname);
		return -1;
	}
	f = h->fault;
	why[0] = '\0';
	if (fault_set(&f, tt->command, why, size))
		return -1;
	bad = fault_check(&f);
	if (bad) {
		snprintf(why, size, "%s", bad);
		return -1;
	}
	for (m = 0; m < h->n; m++)
		for (to = 0; to < h->n; to++) {
			if (f.seed != h->fault.seed)
				fault_queue_seed(&h->queue[m * h->n + to], f.seed, w, m, to);
			fault_retime(&h->queue[m * h->n + to], &f, lab_now_us());
		}
	h->fault = f;
	return 0;
}

int lab_link_step(struct lab *l, const struct topo_test *tt, char *why, size_t size)
{
	switch (tt->step) {
	case TOPO_LINK_DOWN:
		return link_carrier(l, tt, 0, why, size);
	case TOPO_LINK_UP:
		return link_carrier(l, tt, 1, why, size);
	case TOPO_LINK_SET:
		return link_set(l, tt, why, size);
	default:
		snprintf(why, size, "not a link step");
		return -1;
	}
}
