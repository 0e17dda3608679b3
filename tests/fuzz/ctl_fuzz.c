// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the launcher's side of the control protocol
 * (tools/lab/proto.h, tools/lab/host/ctl.c): whatever bytes a guest's
 * agent sends, the launcher must take them or fail that node as garbage,
 * never crash, hang, leak or let a buffer grow past its bound (run under
 * ASan and UBSan by `make fuzz`, seeded with transcripts of real guests in
 * tests/fuzz/ctl/: what the agents sent in x86_64 runs of topo/bridge.topo
 * and of tests/fuzz/ctl-transcripts.topo, read off `strace -xx -e read` of
 * the launcher, each behind a first byte as below; and max-out, by hand:
 * two OUTs of the largest size the protocol allows, which fill the buffer).
 *
 * The first byte of an input says how the bytes arrive: bits 0-5 the size
 * of each write into the socket (0: all at once, as from a fast guest),
 * bit 6 lab shell's echo, bit 7 lab boot's streamed output.  The rest is
 * what the agent sent, through a socketpair into ctl_receive(), the event
 * loop's own read, then the end of file.  Like the event loop, the harness
 * starts the next command whenever the last one ended, its output logged
 * (to /dev/null) as a test's is.  The node is on the heap, its input
 * buffer last: ASan sees an overrun of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../tools/lab/host/internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Echoed and streamed output goes to stdout: not to the fuzzer's log. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "ctl_fuzz: broken invariant: %s\n", what);
		abort();
	}
}

/* The launcher's bounds hold after every read the parser took. */
static void check_bounds(const struct lab *l, const struct node_rt *nr)
{
	check(nr->inlen <= sizeof(nr->in), "input within its buffer");
	check(nr->outlen <= 2 * LAB_TAIL_MAX + PROTO_MAX_OUT, "output tail within its buffer");
	check(!nr->out || nr->out[nr->outlen] == '\0', "output tail terminated");
	check(nr->busy || (nr->status >= 0 && nr->status <= 255), "status from 0 to 255");
	/* The tail is the end of what was logged: nothing lost, nothing made up. */
	check(l->o->stream_output || !nr->busy || nr->outcut + nr->outlen == nr->logged,
	      "the tail and the log agree");
	/* Before the end of file, the channel closes on garbage only. */
	check((nr->ctl < 0) == !!l->failure[0], "closed channel iff failure");
}

/* Reads, as the agent would, the commands the launcher sent: never full. */
static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Lets the launcher read what the socket holds, as its event loop would. */
static void receive(struct lab *l, struct node_rt *nr, int peer)
{
	int pending;

	do {
		ctl_receive(l, 0);
		drain(peer);
		if (nr->ctl >= 0) {
			check_bounds(l, nr);
			if (!nr->busy)
				check(!ctl_start(l, 0, "true", "null", 60), "the next command starts");
		}
	} while (nr->ctl >= 0 && !ioctl(nr->ctl, FIONREAD, &pending) && pending > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topo t = { .path = "fuzz.topo", .nnodes = 1,
				 .nodes = { { .name = "a", .arch = "x86_64" } } };
	/* Logs go to RUN_DIR/LOG: /dev/null. */
	struct run_opts o = { .qemu = { .run_dir = "/dev" } };
	struct node_rt *nr;
	struct lab l = { .t = &t, .o = &o, .failed_node = -1 };
	size_t chunk, at = 1, take;
	ssize_t w;
	int sv[2];

	if (!size)
		return 0;
	nr = calloc(1, sizeof(*nr));
	check(nr != NULL, "memory");
	nr->logfd = -1;
	l.nodes = nr;
	chunk = data[0] & 0x3f;
	l.echo = !!(data[0] & 0x40);
	o.stream_output = !!(data[0] & 0x80);
	if (o.stream_output)
		o.results = fopen("/dev/null", "we");
	check(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv),
	      "a socketpair");
	nr->ctl = sv[0];
	nr->connected = 1;
	check(!ctl_start(&l, 0, "true", "null", 60), "the first command starts");
	drain(sv[1]);
	while (at < size && nr->ctl >= 0) {
		take = size - at;
		if (chunk && take > chunk)
			take = chunk;
		w = write(sv[1], data + at, take);
		check(w > 0 || errno == EAGAIN, "the agent's socket takes bytes");
		if (w > 0)
			at += w;
		receive(&l, nr, sv[1]);
	}
	/* The agent goes: an end of file closes the channel, whatever it held. */
	shutdown(sv[1], SHUT_WR);
	while (nr->ctl >= 0)
		ctl_receive(&l, 0);
	check(nr->logfd < 0 || nr->busy, "a log is open only while a command runs");
	if (nr->logfd >= 0)
		close(nr->logfd);
	close(sv[1]);
	free(nr->out);
	free(nr->sendq);
	free(nr);
	if (o.results)
		fclose(o.results);
	return 0;
}
