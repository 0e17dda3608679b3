// SPDX-License-Identifier: GPL-2.0
/*
 * The control channel to each node's agent (proto.h): connect to the
 * virtio-serial socket QEMU serves, send commands, parse what comes back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

void ctl_connect(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	struct sockaddr_un sa;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.ctl", l->o->qemu.run_dir, l->t->nodes[n].name);
	if (lab_sock_path(&sa, path))
		return;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);	/* QEMU has not created it yet */
		return;
	}
	nr->ctl = fd;
}

/*
 * A command's output: kept for its KTAP diagnostics, or with stream_output
 * passed on at once to stdout and the results file (lab boot).
 */
static void ctl_output(struct lab *l, struct node_rt *nr, const char *buf, size_t len)
{
	char *p;

	if (l->o->stream_output) {
		fwrite(buf, 1, len, stdout);
		fflush(stdout);
		if (l->o->results) {
			fwrite(buf, 1, len, l->o->results);
			fflush(l->o->results);
		}
		return;
	}
	p = realloc(nr->out, nr->outlen + len + 1);
	if (!p)
		return;
	memcpy(p + nr->outlen, buf, len);
	nr->outlen += len;
	p[nr->outlen] = '\0';
	nr->out = p;
}

/* Parses what the agent sent: READY, OUT LEN + bytes, END STATUS. */
void ctl_parse(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	char *nl;
	size_t hdr;
	unsigned long len;
	int status;

	for (;;) {
		nl = memchr(nr->in, '\n', nr->inlen);
		if (!nl)
			return;
		*nl = '\0';
		hdr = nl - nr->in + 1;
		if (!strcmp(nr->in, "READY")) {
			nr->ready = 1;
		} else if (sscanf(nr->in, "OUT %lu", &len) == 1) {
			if (nr->inlen < hdr + len) {
				*nl = '\n';
				return;	/* the payload is still on its way */
			}
			ctl_output(l, nr, nr->in + hdr, len);
			hdr += len;
		} else if (sscanf(nr->in, "END %d", &status) == 1) {
			nr->status = status;
			nr->busy = 0;
		}
		memmove(nr->in, nr->in + hdr, nr->inlen - hdr);
		nr->inlen -= hdr;
	}
}

int ctl_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= w;
	}
	return 0;
}

int ctl_start(struct lab *l, int n, const char *cmd)
{
	struct node_rt *nr = &l->nodes[n];
	char hdr[PROTO_MAX_LINE];
	int len = snprintf(hdr, sizeof(hdr), "RUN %zu\n", strlen(cmd));

	free(nr->out);
	nr->out = NULL;
	nr->outlen = 0;
	nr->busy = 1;
	if (nr->ctl < 0 || ctl_send(nr->ctl, hdr, len) || ctl_send(nr->ctl, cmd, strlen(cmd))) {
		nr->busy = 0;
		return -1;
	}
	return 0;
}
