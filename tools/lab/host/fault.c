// SPDX-License-Identifier: GPL-2.0
/*
 * Faults on the wire: parsing tc's units, and the per-direction queue that
 * drops, duplicates, delays, reorders and paces frames (fault.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fault.h"

struct fault_frame {
	struct fault_frame *next;
	long long due_us;
	size_t len;
	unsigned char data[];
};

struct unit {
	const char *name;
	double scale;
};

/* tc's spellings (tc-netem(8), tc(8) "UNITS"), case-insensitive. */
static const struct unit time_units[] = {
	{ "us", 1 }, { "usec", 1 }, { "usecs", 1 },
	{ "ms", 1e3 }, { "msec", 1e3 }, { "msecs", 1e3 },
	{ "s", 1e6 }, { "sec", 1e6 }, { "secs", 1e6 }, { NULL, 0 }
};

static const struct unit rate_units[] = {	/* to bits per second */
	{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 },
	{ "kibit", 1024. }, { "mibit", 1048576. }, { "gibit", 1073741824. },
	{ "bps", 8 }, { "kbps", 8e3 }, { "mbps", 8e6 }, { "gbps", 8e9 },
	{ "kibps", 8 * 1024. }, { "mibps", 8 * 1048576. }, { "gibps", 8 * 1073741824. },
	{ NULL, 0 }
};

/*
 * A plain decimal number at the start of S (digits and one '.': no sign,
 * exponent, hex, inf or nan, which strtod would take), its end in *END;
 * -1 if S does not start with one.
 */
static double decimal(const char *s, char **end)
{
	size_t digits = strspn(s, "0123456789."), i, dots = 0;

	for (i = 0; i < digits; i++)
		dots += s[i] == '.';
	if (!digits || dots > 1 || (digits == 1 && dots))
		return -1;
	*end = (char *)s + digits;
	return strtod(s, NULL);
}

/* "12.5UNIT": the number times UNIT's scale; -1 if S is not that. */
static double with_unit(const char *s, const struct unit *units)
{
	char *end;
	double v;
	int i;

	v = decimal(s, &end);
	if (v < 0)
		return -1;
	for (i = 0; units[i].name; i++)
		if (!strcasecmp(end, units[i].name))
			return v * units[i].scale;
	return -1;
}

static double percent(const char *s)
{
	char *end;
	double v = decimal(s, &end);

	if (v < 0 || strcmp(end, "%") || v > 100)
		return -1;
	return v / 100;
}

int fault_key(const char *key)
{
	static const char *const keys[] = {
		[FAULT_DELAY] = "delay", [FAULT_JITTER] = "jitter", [FAULT_LOSS] = "loss",
		[FAULT_DUPLICATE] = "duplicate", [FAULT_REORDER] = "reorder",
		[FAULT_RATE] = "rate", [FAULT_SEED] = "seed",
	};
	int i;

	for (i = 0; i < (int)(sizeof(keys) / sizeof(keys[0])); i++)
		if (!strcmp(key, keys[i]))
			return i;
	return -1;
}

int fault_option(struct fault *f, const char *key, const char *val, char *err,
		 size_t errlen)
{
	int k = fault_key(key);
	double v;
	char *end;

	switch (k) {
	case FAULT_DELAY:
	case FAULT_JITTER:
		v = with_unit(val, time_units);
		if (v < 0 || v > 10e6 || (v > 0 && v < 1)) {
			snprintf(err, errlen, "%s=%s: give 0 or a time from 1us to 10s, in us, ms or s (10ms)",
				 key, val);
			return -1;
		}
		*(k == FAULT_DELAY ? &f->delay_us : &f->jitter_us) = lround(v);
		return 1;
	case FAULT_LOSS:
	case FAULT_DUPLICATE:
	case FAULT_REORDER:
		v = percent(val);
		if (v < 0) {
			snprintf(err, errlen, "%s=%s: give a percentage from 0%% to 100%% (1%%, 0.5%%)",
				 key, val);
			return -1;
		}
		*(k == FAULT_LOSS ? &f->loss : k == FAULT_DUPLICATE ? &f->duplicate : &f->reorder) = v;
		return 1;
	case FAULT_RATE:	/* rate=0: no limit, so that link-set can lift one */
		v = strcmp(val, "0") ? with_unit(val, rate_units) : 0;
		if (v < 0 || (v > 0 && v < 8) || v > 100e9) {
			snprintf(err, errlen, "rate=%s: give 0 (no limit) or a rate from 8bit to 100gbit, in tc's units (10mbit, 1mbps)",
				 val);
			return -1;
		}
		f->rate_bps = llround(v);
		return 1;
	case FAULT_SEED:
		errno = 0;
		if (*val < '0' || *val > '9' || (f->seed = strtoull(val, &end, 10), *end) || errno) {
			snprintf(err, errlen, "seed=%s: give a whole number below 2^64", val);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

int fault_set(struct fault *f, const char *opts, char *err, size_t errlen)
{
	char word[128], *eq;
	unsigned int seen = 0;
	size_t len;
	int r;

	for (;;) {
		opts += strspn(opts, " \t");
		len = strcspn(opts, " \t");
		if (!len)
			return 0;
		if (len >= sizeof(word)) {
			snprintf(err, errlen, "'%.20s...' is too long for an impairment", opts);
			return -1;
		}
		memcpy(word, opts, len);
		word[len] = '\0';
		opts += len;
		eq = strchr(word, '=');
		if (eq)
			*eq++ = '\0';
		r = eq ? fault_option(f, word, eq, err, errlen) : 0;
		if (r < 0)
			return -1;
		if (r && (seen & 1u << fault_key(word))) {
			snprintf(err, errlen, "%s= given twice", word);
			return -1;
		}
		if (r)
			seen |= 1u << fault_key(word);
		if (!r) {
			if (eq)
				eq[-1] = '=';
			snprintf(err, errlen, "'%s' is not an impairment (delay=, jitter=, loss=, duplicate=, reorder=, rate=, seed=)",
				 word);
			return -1;
		}
	}
}

const char *fault_check(const struct fault *f)
{
	/* As netem: a frame can only jump a queue that delays frames. */
	if (f->reorder > 0 && !f->delay_us)
		return "reorder= needs delay=: a reordered frame is one sent without the delay";
	/* Spread evenly over delay +-jitter: no delay may fall below zero. */
	if (f->jitter_us > f->delay_us)
		return "jitter= is larger than delay=: a frame cannot leave before it came";
	return NULL;
}

int fault_active(const struct fault *f)
{
	return f->delay_us || f->jitter_us || f->loss > 0 || f->duplicate > 0 ||
	       f->reorder > 0 || f->rate_bps;
}

static void format_time(char *buf, size_t size, const char *key, long us)
{
	if (us % 1000)
		snprintf(buf, size, " %s=%ldus", key, us);
	else
		snprintf(buf, size, " %s=%ldms", key, us / 1000);
}

void fault_format(const struct fault *f, char *buf, size_t size)
{
	static const char *const rates[] = { "gbit", "mbit", "kbit" };
	long long r = f->rate_bps, scale = 1000000000;
	size_t used;
	int i;

	buf[0] = '\0';
	if (f->delay_us)
		format_time(buf, size, "delay", f->delay_us);
	used = strlen(buf);
	if (f->jitter_us)
		format_time(buf + used, size - used, "jitter", f->jitter_us);
	used = strlen(buf);
	if (f->loss > 0)
		used += snprintf(buf + used, size - used, " loss=%g%%", f->loss * 100);
	if (f->duplicate > 0 && used < size)
		used += snprintf(buf + used, size - used, " duplicate=%g%%", f->duplicate * 100);
	if (f->reorder > 0 && used < size)
		used += snprintf(buf + used, size - used, " reorder=%g%%", f->reorder * 100);
	if (r && used < size) {
		for (i = 0; i < 3 && r % scale; i++)
			scale /= 1000;
		used += snprintf(buf + used, size - used, " rate=%lld%s", r / scale,
				 i < 3 ? rates[i] : "bit");
	}
	if (fault_active(f) && used < size)
		snprintf(buf + used, size - used, " seed=%llu", f->seed);
}

/* splitmix64: small, fast, and the same numbers on every host. */
static unsigned long long next_random(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, 1) from Q's stream. */
static double uniform(struct fault_queue *q)
{
	return (next_random(&q->rng) >> 11) * 0x1.0p-53;
}

void fault_queue_seed(struct fault_queue *q, unsigned long long seed, int wire,
		      int from, int to)
{
	q->rng = seed ^ ((unsigned long long)wire << 40) ^ ((unsigned long long)from << 20) ^
		 (unsigned long long)to;
	next_random(&q->rng);
}

/* Into Q by due time; equal times keep their order (a FIFO link). */
static void insert(struct fault_queue *q, struct fault_frame *fr)
{
	struct fault_frame **pp = &q->head;

	q->bytes += fr->len;
	if (!q->tail || q->tail->due_us <= fr->due_us) {
		pp = q->tail ? &q->tail->next : &q->head;
	} else {
		while (*pp && (*pp)->due_us <= fr->due_us)
			pp = &(*pp)->next;
	}
	fr->next = *pp;
	*pp = fr;
	if (!fr->next)
		q->tail = fr;
	q->queued++;
}

/* No room for LEN more bytes: a full queue drops at its tail, as netem's. */
static int queue_full(const struct fault_queue *q, size_t len)
{
	return q->queued >= FAULT_QUEUE_MAX || q->bytes + len > FAULT_QUEUE_BYTES;
}

static void queue_copy(struct fault_queue *q, const void *frame, size_t len, long long due_us)
{
	struct fault_frame *fr;

	if (queue_full(q, len))
		return;
	fr = malloc(sizeof(*fr) + len);
	if (!fr)
		return;		/* a frame lost to memory is still a lost frame */
	fr->due_us = due_us;
	fr->len = len;
	memcpy(fr->data, frame, len);
	insert(q, fr);
}

void fault_enqueue(struct fault_queue *q, const struct fault *f, const void *frame,
		   size_t len, long long now_us)
{
	/* Four draws a frame, whatever is set: one change moves no other. */
	double lose = uniform(q), dup = uniform(q), jump = uniform(q), jit = uniform(q);
	long long delay = f->delay_us, start = now_us;

	/* Lost, or dropped before it takes the rate limit's time. */
	if (lose < f->loss || queue_full(q, len))
		return;
	if (jump < f->reorder)
		delay = 0;
	else if (f->jitter_us)
		delay += llround((2 * jit - 1) * f->jitter_us);
	if (delay < 0)
		delay = 0;
	if (f->rate_bps) {
		/* The frame is on the wire after the ones before it. */
		if (q->busy_until_us > start)
			start = q->busy_until_us;
		q->busy_until_us = start + (long long)len * 8 * 1000000 / f->rate_bps;
		start = q->busy_until_us;
	}
	queue_copy(q, frame, len, start + delay);
	if (dup < f->duplicate)
		queue_copy(q, frame, len, start + delay);
}

void fault_hold(struct fault_queue *q, const void *frame, size_t len, long long now_us)
{
	queue_copy(q, frame, len, now_us);
}

void fault_retime(struct fault_queue *q, const struct fault *f, long long now_us)
{
	long long busy = now_us, due;
	struct fault_frame *fr;

	for (fr = q->head; fr; fr = fr->next) {
		if (f->rate_bps)
			busy += (long long)fr->len * 8 * 1000000 / f->rate_bps;
		due = busy + f->delay_us;
		/* Two sequences in order: their smaller stays in order. */
		if (due < fr->due_us)
			fr->due_us = due;
	}
	q->busy_until_us = f->rate_bps ? busy : now_us;
}

long long fault_next_us(const struct fault_queue *q)
{
	return q->head ? q->head->due_us : -1;
}

int fault_release(struct fault_queue *q, long long now_us,
		  int (*send)(void *arg, const void *frame, size_t len), void *arg)
{
	struct fault_frame *fr;

	while ((fr = q->head) && fr->due_us <= now_us) {
		if (send(arg, fr->data, fr->len))
			return 1;
		q->head = fr->next;
		if (!q->head)
			q->tail = NULL;
		q->queued--;
		q->bytes -= fr->len;
		free(fr);
	}
	return 0;
}

void fault_queue_free(struct fault_queue *q)
{
	while (q->head) {
		struct fault_frame *fr = q->head;

		q->head = fr->next;
		free(fr);
	}
	q->tail = NULL;
	q->queued = 0;
	q->bytes = 0;
}
