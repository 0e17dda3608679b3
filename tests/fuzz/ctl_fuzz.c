// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the launcher's side of the control protocol
 * (tools/lab/proto.h, ctl.c): whatever bytes a guest's agent sends, the
 * launcher must take them or fail that node as garbage, never crash, hang,
 * leak or let a buffer grow past its bound (run under ASan and UBSan by
 * `make fuzz`, seeded with transcripts of real guests in tests/fuzz/ctl/:
 * what the agents sent in x86_64 runs of topo/bridge.topo and of
 * tests/fuzz/ctl-transcripts.topo, read off `strace -xx -e read` of the
 * launcher, each behind a first byte as below).
 *
 * The first byte of an input says how the bytes arrive: bits 0-5 the size
 * of each read (0: as much as the buffer takes, as from a fast guest),
 * bit 6 lab shell's echo, bit 7 lab boot's streamed output.  The rest is
 * what the agent sent.  Like the event loop, the harness starts the next
 * command whenever the last one ended.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/lab/internal.h"

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
	/* The channel closes on garbage only, and then the lab has failed. */
	check((nr->ctl < 0) == !!l->failure[0], "closed channel iff failure");
	check(!strpbrk(l->failure, "\n\r"), "failure on one line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topo t = { .path = "fuzz.topo", .nnodes = 1,
				 .nodes = { { .name = "a", .arch = "x86_64" } } };
	struct run_opts o = { .qemu = { .run_dir = "/nonexistent" } };
	struct node_rt nr = { .ctl = -1, .logfd = -1 };
	struct lab l = { .t = &t, .o = &o, .nodes = &nr, .failed_node = -1 };
	size_t chunk, at = 1, room, take;

	if (!size)
		return 0;
	chunk = data[0] & 0x3f;
	l.echo = !!(data[0] & 0x40);
	o.stream_output = !!(data[0] & 0x80);
	if (o.stream_output)
		o.results = fopen("/dev/null", "we");
	/* A descriptor the commands are written to and the parser may close. */
	nr.ctl = open("/dev/null", O_WRONLY | O_CLOEXEC);
	check(nr.ctl >= 0, "/dev/null opens");
	check(!ctl_start(&l, 0, "true", NULL, 60), "the first command starts");
	while (at < size && nr.ctl >= 0) {
		/* As ctl_receive: one read, at most what the buffer has room for. */
		room = sizeof(nr.in) - nr.inlen;
		take = size - at;
		if (chunk && take > chunk)
			take = chunk;
		if (take > room)
			take = room;
		check(take > 0, "a parse leaves room for the next read");
		memcpy(nr.in + nr.inlen, data + at, take);
		nr.inlen += take;
		at += take;
		ctl_parse(&l, 0);
		check_bounds(&l, &nr);
		if (nr.ctl >= 0 && !nr.busy)
			check(!ctl_start(&l, 0, "true", NULL, 60), "the next command starts");
	}
	ctl_close(&l, 0);
	free(nr.out);
	free(nr.sendq);
	if (o.results)
		fclose(o.results);
	return 0;
}
