/* SPDX-License-Identifier: GPL-2.0 */
/* The guest arches: one file each, TOP/arch/NAME.conf (arch/x86_64.conf). */
#ifndef LAB_ARCH_H
#define LAB_ARCH_H

#include <stddef.h>

#define ARCH_NAME_MAX	16

struct arch_desc {
	char name[ARCH_NAME_MAX];
	char qemu[64];			/* qemu-system-... */
	char machine[64];		/* -M */
	char cpu[64];			/* -cpu */
	char kernel_image[256];		/* relative to the kernel object folder */
	char kernel_image_debug[256];	/* the same, for the DEBUG=1 kernel */
	char cmdline[1024];		/* configs/common.cmdline, then cmdline= */
	char cross_compile[64];		/* empty: the host's own gcc builds it */
	char tcg_tsc_param[32];		/* under TCG, the host's TSC kHz goes here */
};

/*
 * The names of every TOP/arch/NAME.conf, sorted, separated by spaces, in
 * BUF; 0, or -1 with the reason on stderr (no file, a bad name, BUF too
 * small).
 */
int arch_names(const char *top, char *buf, size_t size);

/*
 * The first of NAMES (from arch_names) that builds with the host's gcc
 * (no cross_compile=): the default arch.  0, or -1 if none does.
 */
int arch_native(const char *top, const char *names, char *buf, size_t size);

/*
 * Reads TOP/arch/NAME.conf (and TOP/configs/common.cmdline) into *A;
 * 0, or -1 with "lab: FILE: reason" on stderr.
 */
int arch_load(const char *top, const char *name, struct arch_desc *a);

#endif
