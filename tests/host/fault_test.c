// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test: the launcher's fault queue (tools/lab/host/fault.c) with time
 * driven by hand, so every figure is exact: the same seed drops the same
 * frames, rates hold over 10,000 frames, delays and pacing land on the
 * microsecond.  KTAP on stdout; tests/host/unit-launcher.sh builds and runs it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/lab/host/fault.h"

#define FRAMES	10000

static int num, failed;

static void result(int ok, const char *what)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++num, what);
	failed += !ok;
}

struct record {
	long long now;		/* the release time being asked for */
	long long due[3 * FRAMES];
	int n;
	int id[3 * FRAMES];	/* each frame's number, from its first two bytes */
};

static int keep(void *arg, const void *frame, size_t len)
{
	const unsigned char *bytes = frame;
	struct record *r = arg;

	(void)len;
	if (r->n < 3 * FRAMES) {
		r->due[r->n] = r->now;
		r->id[r->n++] = bytes[0] << 8 | bytes[1];
	}
	return 0;
}

/*
 * FRAMES frames of LEN bytes into a queue with F, one every GAP us from
 * t=0, each released at the first microsecond it is due (its time is
 * known exactly: fault_next_us).  R gets them in release order.
 */
static void run(const struct fault *f, size_t len, long long gap, struct record *r)
{
	struct fault_queue q = { 0 };
	unsigned char frame[2048] = { 0 };
	long long t = 0, due;
	int i;

	memset(r, 0, sizeof(*r));
	fault_queue_seed(&q, f->seed, 3, 0, 1);
	for (i = 0; i < FRAMES; i++, t += gap) {
		while ((due = fault_next_us(&q)) >= 0 && due < t) {
			r->now = due;
			fault_release(&q, due, keep, r);
		}
		frame[0] = i >> 8;
		frame[1] = i & 0xff;
		fault_enqueue(&q, f, frame, len, t);
	}
	while ((due = fault_next_us(&q)) >= 0) {
		r->now = due;
		fault_release(&q, due, keep, r);
	}
	fault_queue_free(&q);
}

static struct fault parse(const char *opts)
{
	struct fault f = { .seed = FAULT_SEED_DEFAULT };
	char err[160];

	if (fault_set(&f, opts, err, sizeof(err))) {
		printf("# %s: %s\n", opts, err);
		exit(1);
	}
	return f;
}

int main(void)
{
	static struct record a, b;
	struct fault f, g;
	char text[256];
	double mean;
	int i, late = 0, ordered = 1, early = 0;

	printf("KTAP version 1\n1..12\n");

	f = parse("loss=20%");
	run(&f, 100, 100, &a);
	printf("# loss=20%%: %d of %d frames delivered\n", a.n, FRAMES);
	result(fabs(1 - (double)a.n / FRAMES - 0.20) <= 0.005,
	       "loss=20% drops 20% +-0.5 points of 10,000 frames");

	run(&f, 100, 100, &b);
	result(a.n == b.n && !memcmp(a.id, b.id, a.n * sizeof(a.id[0])), "the same seed drops the same frames");
	g = parse("loss=20% seed=2");
	run(&g, 100, 100, &b);
	result(a.n != b.n || memcmp(a.id, b.id, a.n * sizeof(a.id[0])), "another seed drops others");

	f = parse("delay=10ms");
	run(&f, 100, 100, &a);
	for (i = 0; i < a.n; i++)
		late += a.due[i] != i * 100LL + 10000;
	result(a.n == FRAMES && !late, "delay=10ms: every frame exactly 10 ms later, in order");

	f = parse("delay=10ms jitter=2ms");
	run(&f, 100, 1000, &a);
	for (i = 0, mean = 0, late = 0; i < a.n; i++) {
		long long delay = a.due[i] - a.id[i] * 1000LL;

		late += delay < 8000 || delay > 12000;
		mean += delay;
	}
	mean /= a.n;
	printf("# delay=10ms jitter=2ms: mean %.0f us, %d outside 8-12 ms\n", mean, late);
	result(a.n == FRAMES && !late && fabs(mean - 10000) < 100,
	       "jitter=2ms: every delay within 10 ms +-2 ms, mean 10 ms");

	f = parse("duplicate=50%");
	run(&f, 100, 100, &a);
	printf("# duplicate=50%%: %d frames out of %d\n", a.n, FRAMES);
	result(fabs((double)a.n / FRAMES - 1.5) <= 0.01, "duplicate=50% sends 1.5 times as many frames");

	f = parse("delay=10ms reorder=10%");
	run(&f, 100, 100, &a);
	/* A frame that jumps leaves when it comes, ahead of the ~99 queued. */
	for (i = 0; i < a.n; i++)
		early += a.due[i] == a.id[i] * 100LL;
	for (i = 0; i < a.n; i++)
		ordered &= a.due[i] >= (i ? a.due[i - 1] : 0);
	printf("# delay=10ms reorder=10%%: %d frames sent without the delay, ahead of earlier ones\n",
	       early);
	result(a.n == FRAMES && ordered && fabs((double)early / FRAMES - 0.10) <= 0.01,
	       "reorder=10%: a tenth of the frames jump the delay queue");

	/* 8 mbit/s is a byte a microsecond: 1000-byte frames leave 1 ms apart. */
	f = parse("rate=8mbit");
	run(&f, 1000, 0, &a);
	for (i = 0, late = 0; i < a.n; i++)
		late += a.due[i] != (i + 1) * 1000LL;
	printf("# rate=8mbit: %d of %d back-to-back frames queued\n", a.n, FRAMES);
	result(a.n == FAULT_QUEUE_MAX && !late,
	       "rate=8mbit paces 1000-byte frames 1 ms apart; past 1000 queued, tail drop");

	f = parse("delay=1500us jitter=1ms loss=0.5% duplicate=1% reorder=2% rate=10mbit seed=42");
	fault_format(&f, text, sizeof(text));
	g = parse(text);
	printf("# formatted:%s\n", text);
	result(!memcmp(&f, &g, sizeof(f)) &&
	       !strcmp(text, " delay=1500us jitter=1ms loss=0.5% duplicate=1% reorder=2% rate=10mbit seed=42"),
	       "impairments print in tc's units and read back the same");

	/* Frames held on a plain wire draw nothing: the seed's stream stays put. */
	{
		struct fault_queue q1 = { 0 }, q2 = { 0 };
		unsigned char frame[100] = { 0 };

		fault_queue_seed(&q1, 1, 0, 0, 1);
		fault_queue_seed(&q2, 1, 0, 0, 1);
		for (i = 0; i < 50; i++)
			fault_hold(&q1, frame, sizeof(frame), 0);
		result(q1.rng == q2.rng && q1.queued == 50 && fault_next_us(&q1) == 0,
		       "a held frame is due at once and draws no random number");
		fault_queue_free(&q1);
	}

	/* 60,000-byte frames: the 4 MiB bound comes before the 1000 frames. */
	f = parse("delay=10ms");
	{
		struct fault_queue q = { 0 };
		static unsigned char big[60000];

		fault_queue_seed(&q, 1, 0, 0, 1);
		for (i = 0; i < 1000; i++)
			fault_enqueue(&q, &f, big, sizeof(big), 0);
		printf("# 1000 frames of 60000 bytes: %d queued, %zu bytes\n", q.queued, q.bytes);
		result(q.queued == FAULT_QUEUE_BYTES / 60000 && q.bytes <= FAULT_QUEUE_BYTES,
		       "a direction holds at most 4 MiB");
		fault_queue_free(&q);
	}

	/* rate=8bit queues frames for centuries; lifting the rate frees them. */
	f = parse("rate=8bit");
	g = parse("rate=0");
	{
		struct fault_queue q = { 0 };
		unsigned char frame[1000] = { 0 };

		fault_queue_seed(&q, 1, 0, 0, 1);
		for (i = 0; i < 10; i++)
			fault_enqueue(&q, &f, frame, sizeof(frame), 0);
		late = fault_next_us(&q) == 1000LL * 1000000;
		fault_retime(&q, &g, 5);
		result(late && fault_next_us(&q) == 5 && q.queued == 10,
		       "link-set rate=0 lifts the limit: queued frames leave at once");
		fault_queue_free(&q);
	}

	printf("%d passed, %d failed, 0 skipped\n", num - failed, failed);
	return failed ? 1 : 0;
}
