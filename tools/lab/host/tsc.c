// SPDX-License-Identifier: GPL-2.0
/*
 * The host's TSC rate, for x86 guests under TCG: QEMU 7.2's rdtsc returns
 * the host's own ticks, and the guest kernel's calibration against the
 * PIT fails when the host is busy (three guests on two cores, in 5 boots
 * of 9): the guest then marks its TSC unstable and keeps time with
 * jiffies, 4 ms a step, for the whole run.  Given the rate
 * (tsc_early_khz=, arch/x86_64.conf), it skips that calibration.  Not
 * under -icount (qemu.c), where QEMU's TSC counts instructions instead.
 */
#include <time.h>

#include "tsc.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The TSC at a clock reading: the midpoint of the two clock reads around
 * it, from the tightest of a few tries (a preemption widens one).
 */
static void sample(double *ns, unsigned long long *tsc)
{
	double before, after, best = 1e18;
	unsigned long long t;
	int i;

	for (i = 0; i < 5; i++) {
		before = now_ns();
		t = __rdtsc();
		after = now_ns();
		if (after - before < best) {
			best = after - before;
			*ns = (before + after) / 2;
			*tsc = t;
		}
	}
}

unsigned long host_tsc_khz(void)
{
	struct timespec nap = { .tv_nsec = 5 * 1000 * 1000 };
	unsigned long long t0, t1;
	double ns0, ns1;

	sample(&ns0, &t0);
	nanosleep(&nap, NULL);
	sample(&ns1, &t1);
	if (ns1 <= ns0 || t1 <= t0)
		return 0;
	/*
	 * To the MHz: the same command line each run (the reproduce file),
	 * and the guest's clock off by 0.03% at most.
	 */
	return (unsigned long)((t1 - t0) * 1e3 / (ns1 - ns0) + 0.5) * 1000;
}
#else
unsigned long host_tsc_khz(void)
{
	return 0;
}
#endif
