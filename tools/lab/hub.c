// SPDX-License-Identifier: GPL-2.0
/*
 * Wires: a link is a socket pair QEMU makes itself; a lan is a hub here,
 * one datagram socket per member, relaying every frame to the others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "internal.h"

int lab_sock_path(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		fprintf(stderr, "lab: %s: socket path longer than %zu bytes\n",
			path, sizeof(sa->sun_path) - 1);
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

int hubs_open(struct lab *l)
{
	const struct topo *t = l->t;
	struct sockaddr_un sa;
	char path[4096];
	int w, m;

	l->hubs = calloc(t->nwires, sizeof(*l->hubs));
	if (!l->hubs)
		return -1;
	for (w = 0; w < t->nwires; w++) {
		struct hub *h;

		if (!t->wires[w].is_lan)
			continue;
		h = &l->hubs[l->nhubs++];
		h->wire = w;
		h->n = t->wires[w].nmembers;
		for (m = 0; m < h->n; m++) {
			qemu_hub_path(&l->o->qemu, w, m, path, sizeof(path));
			if (lab_sock_path(&sa, path))
				return -1;
			h->fd[m] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (h->fd[m] < 0 || bind(h->fd[m], (struct sockaddr *)&sa, sizeof(sa))) {
				fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
				return -1;
			}
			qemu_wire_path(&l->o->qemu, w, m, path, sizeof(path));
			if (lab_sock_path(&h->peer[m], path))
				return -1;
		}
	}
	return 0;
}

/* A frame from one member goes to every other member: a hub, no echo. */
void hub_relay(struct hub *h, int from)
{
	char frame[65536];
	ssize_t n;
	int m;

	while ((n = recv(h->fd[from], frame, sizeof(frame), 0)) > 0)
		for (m = 0; m < h->n; m++)
			if (m != from)
				sendto(h->fd[m], frame, n, MSG_DONTWAIT,
				       (struct sockaddr *)&h->peer[m], sizeof(h->peer[m]));
}
