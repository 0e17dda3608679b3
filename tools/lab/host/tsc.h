/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_TSC_H
#define LAB_TSC_H

/*
 * The host's TSC frequency in kHz, to the MHz, measured against
 * CLOCK_MONOTONIC_RAW over 5 ms; 0 on a host without a TSC.  Under TCG
 * a guest's TSC is the host's (QEMU's rdtsc reads the host's ticks),
 * unless -icount.
 */
unsigned long host_tsc_khz(void);

#endif
