// SPDX-License-Identifier: GPL-2.0
/*
 * Wires: a plain link is a socket pair QEMU makes itself; a lan, a link
 * with impairments and a link a link-set changes are relayed here, one
 * datagram socket per member, every frame to the other members, through
 * one fault queue per direction when the wire has impairments (fault.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

/* QEMU's NET_BUFSIZE: the largest frame a NIC hands its netdev, and more. */
#define HUB_FRAME_MAX	69632

static int hub_open(struct lab *l, struct hub *h, int w)
{
	const struct topo_wire *wire = &l->t->wires[w];
	struct sockaddr_un sa;
	char path[4096];
	int m, to;

	h->wire = w;
	h->n = wire->nmembers;
	for (m = 0; m < h->n; m++)
		h->fd[m] = -1;	/* what hubs_close closes if this fails half-way */
	h->fault = wire->fault;
	h->queue = calloc(h->n * h->n, sizeof(*h->queue));
	if (!h->queue)
		return -1;
	for (m = 0; m < h->n; m++) {
		for (to = 0; to < h->n; to++)
			fault_queue_seed(&h->queue[m * h->n + to], h->fault.seed, w, m, to);
		qemu_hub_path(&l->o->qemu, w, m, path, sizeof(path));
		if (lab_sock_path(&sa, path))
			return -1;
		/* A run folder used again keeps the last run's socket: as QEMU does. */
		unlink(path);
		h->fd[m] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (h->fd[m] < 0 || bind(h->fd[m], (struct sockaddr *)&sa, sizeof(sa))) {
			fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
			return -1;
		}
		qemu_wire_path(&l->o->qemu, w, m, path, sizeof(path));
		if (lab_sock_path(&h->peer[m], path))
			return -1;
	}
	return 0;
}

int hubs_open(struct lab *l)
{
	const struct topo *t = l->t;
	int w;

	l->hubs = calloc(t->nwires, sizeof(*l->hubs));
	if (!l->hubs)
		return -1;
	for (w = 0; w < t->nwires; w++) {
		if (!qemu_wire_relayed(&l->o->qemu, &t->wires[w]))
			continue;
		if (hub_open(l, &l->hubs[l->nhubs++], w))
			return -1;
	}
	return 0;
}

void hubs_close(struct lab *l)
{
	int h, m;

	for (h = 0; l->hubs && h < l->nhubs; h++) {
		struct hub *hub = &l->hubs[h];

		for (m = 0; m < hub->n; m++) {
			if (hub->fd[m] >= 0)
				close(hub->fd[m]);
			if (hub->queue)
				for (int to = 0; to < hub->n; to++)
					fault_queue_free(&hub->queue[m * hub->n + to]);
		}
		free(hub->queue);
	}
	free(l->hubs);
	l->hubs = NULL;
	l->nhubs = 0;
}

struct hub *hub_of_wire(struct lab *l, int w)
{
	int h;

	for (h = 0; h < l->nhubs; h++)
		if (l->hubs[h].wire == w)
			return &l->hubs[h];
	return NULL;
}

struct delivery {
	struct hub *hub;
	int to;
};

/*
 * -1 if the member's socket queue is full (a unix datagram socket holds
 * net.unix.max_dgram_qlen, 10 by default): the frame waits in the relay,
 * as QEMU's own net queue makes it wait on a direct link.  A member not
 * listening (its QEMU gone) loses the frame, as an unplugged cable.
 */
static int deliver(void *arg, const void *frame, size_t len)
{
	struct delivery *d = arg;

	if (sendto(d->hub->fd[d->to], frame, len, MSG_DONTWAIT,
		   (struct sockaddr *)&d->hub->peer[d->to], sizeof(d->hub->peer[d->to])) < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
		return -1;
	return 0;
}

/* A frame from one member goes to every other member: a hub, no echo. */
void hub_relay(struct hub *h, int from)
{
	int impaired = fault_active(&h->fault), m;
	long long now = lab_now_us();
	struct delivery d = { h, 0 };
	char frame[HUB_FRAME_MAX];
	ssize_t n;

	while ((n = recv(h->fd[from], frame, sizeof(frame), 0)) > 0)
		for (m = 0; m < h->n; m++) {
			struct fault_queue *q = &h->queue[from * h->n + m];

			if (m == from)
				continue;
			d.to = m;
			/* Behind what waits already, in order. */
			if (impaired)
				fault_enqueue(q, &h->fault, frame, n, now);
			else if (q->head || deliver(&d, frame, n))
				fault_hold(q, frame, n, now);
		}
}

long long hubs_release(struct lab *l)
{
	long long now = lab_now_us(), next = -1, due;
	int h, q;

	for (h = 0; h < l->nhubs; h++) {
		struct hub *hub = &l->hubs[h];

		for (q = 0; q < hub->n * hub->n; q++) {
			struct delivery d = { hub, q % hub->n };

			if (!hub->queue[q].head)
				continue;
			/*
			 * A member that takes no more is tried again after 100 us,
			 * then twice as long each time up to 100 ms: a QEMU that
			 * stopped reading costs the relay no CPU.
			 */
			if (fault_release(&hub->queue[q], now, deliver, &d)) {
				long long *b = &hub->queue[q].backoff_us;

				*b = *b ? (*b * 2 > 100000 ? 100000 : *b * 2) : 100;
				due = now + *b;
			} else {
				hub->queue[q].backoff_us = 0;
				due = fault_next_us(&hub->queue[q]);
			}
			if (due >= 0 && (next < 0 || due < next))
				next = due;
		}
	}
	return next;
}
