/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Faults on the wire: what tc netem does to a queue, done by the launcher to
 * each direction of a wire it relays (delay, jitter, loss, duplication,
 * reordering, a rate limit), deterministic from a seed.  Needs nothing in
 * the guests, and shows up in their pcaps.
 */
#ifndef LAB_FAULT_H
#define LAB_FAULT_H

#include <stddef.h>

struct fault {
	long delay_us, jitter_us;
	double loss, duplicate, reorder;	/* probabilities, 0 to 1 */
	long long rate_bps;			/* 0: no limit */
	unsigned long long seed;
};

#define FAULT_SEED_DEFAULT	1
/*
 * Frames one direction holds (netem's default limit) and bytes (so that
 * big frames cannot make it a memory hog); more are dropped.
 */
#define FAULT_QUEUE_MAX		1000
#define FAULT_QUEUE_BYTES	(4 << 20)

enum fault_key {		/* the impairment keys, in the order they print */
	FAULT_DELAY, FAULT_JITTER, FAULT_LOSS, FAULT_DUPLICATE, FAULT_REORDER,
	FAULT_RATE, FAULT_SEED,
};

/* KEY's number (an enum fault_key) if it is an impairment key, else -1. */
int fault_key(const char *key);
/*
 * KEY=VAL into F: 1 if KEY is one of delay, jitter, loss, duplicate,
 * reorder, rate, seed and VAL a valid value for it (tc's units); 0 if KEY
 * is none of them; -1, the reason in ERR, if VAL is not valid.
 */
int fault_option(struct fault *f, const char *key, const char *val, char *err,
		 size_t errlen);
/*
 * OPTS, blank-separated KEY=VALUEs, into F, each as fault_option; 0, or -1
 * with the reason in ERR (F then partly changed).  Keys it does not know
 * are errors.
 */
int fault_set(struct fault *f, const char *opts, char *err, size_t errlen);
/* Why F as a whole cannot be (reorder= without delay=), or NULL. */
const char *fault_check(const struct fault *f);
/* Whether F does anything to a frame. */
int fault_active(const struct fault *f);
/* " delay=10ms loss=1%" and so on, what F sets, with its seed if active. */
void fault_format(const struct fault *f, char *buf, size_t size);

struct fault_frame;

struct fault_queue {		/* one direction of one wire */
	unsigned long long rng;
	long long busy_until_us;	/* the rate limit's link is busy */
	struct fault_frame *head, *tail;	/* by release time */
	int queued;
	size_t bytes;
	long long backoff_us;	/* the receiver took no more: wait this long */
};

/*
 * Q's random stream: from SEED and the direction (WIRE, FROM, TO), so that
 * every direction draws the same numbers in every run, whatever the others
 * carry.
 */
void fault_queue_seed(struct fault_queue *q, unsigned long long seed, int wire,
		      int from, int to);
/* A frame entering Q at NOW_US: dropped, or queued once or twice. */
void fault_enqueue(struct fault_queue *q, const struct fault *f, const void *frame,
		   size_t len, long long now_us);
/*
 * A frame of a wire with no impairment that must wait (behind others, or
 * for a receiver): queued as it is, due at once, no random number drawn.
 */
void fault_hold(struct fault_queue *q, const void *frame, size_t len, long long now_us);
/*
 * Q's impairments changed to F at NOW_US: frames it holds leave no later
 * than F would send them if they came now (a rate lifted frees them).
 */
void fault_retime(struct fault_queue *q, const struct fault *f, long long now_us);
/* When Q's first frame is due, or -1 if Q is empty. */
long long fault_next_us(const struct fault_queue *q);
/*
 * Hands every frame of Q due at NOW_US to SEND, in order, and frees it;
 * stops at a frame SEND could not take yet (it returns -1: the receiver's
 * queue is full), which stays first.  1 if it stopped so, else 0.
 */
int fault_release(struct fault_queue *q, long long now_us,
		  int (*send)(void *arg, const void *frame, size_t len), void *arg);
/* Drops whatever Q holds. */
void fault_queue_free(struct fault_queue *q);

#endif
