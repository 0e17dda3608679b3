/* SPDX-License-Identifier: GPL-2.0 */
/* QEMU command lines for topology nodes. */
#ifndef LAB_QEMU_H
#define LAB_QEMU_H

#include <stdio.h>

#include "arch.h"
#include "topo.h"

struct qemu_opts {
	const char *top;	/* the project: arch/NAME.conf, configs/common.cmdline */
	const char *build;	/* build/ folder: build/ARCH/{kernel,*.erofs} */
	const char *run_dir;	/* sockets, logs and captures go here */
	const char *accel;	/* tcg or kvm */
	int capture;		/* write a pcap per NIC */
	int debug;		/* boot the DEBUG=1 kernels (build/ARCH/kernel-debug) */
	int dry_run;		/* name the images without requiring them (lab argv) */
	const char *kernel;	/* an image instead of BUILD/ARCH's, or NULL */
	const char *append;	/* more kernel command line, or NULL */
	const char *qemu_extra;	/* more QEMU options, split at spaces, or NULL */
	int relay_all;		/* every wire through the launcher (lab shell) */
	/*
	 * The host's TSC rate for arch tcg_tsc_param=: 0 until qemu_argv
	 * first needs it and measures it (5 ms), once a run; NULL: never.
	 */
	unsigned long *host_tsc_khz;
};

/* The MAC of NIC PORT of node NODE: a function of the topology alone. */
void qemu_mac(int node, int port, char mac[18]);

/*
 * Whether W's frames pass through the launcher (a lan, a wire with faults
 * or a link-set, every wire with relay_all), or go from QEMU to QEMU.
 */
int qemu_wire_relayed(const struct qemu_opts *o, const struct topo_wire *w);
/* Unix socket paths of a wire member: its own end, and the hub's for lans. */
void qemu_wire_path(const struct qemu_opts *o, int wire, int member,
		    char *buf, size_t size);
void qemu_hub_path(const struct qemu_opts *o, int wire, int member,
		   char *buf, size_t size);

/* What a node boots: its kernel, and its disks, the root image first. */
struct qemu_images {
	char kernel[4096];
	char disk[1 + TOPO_MAX_IMAGES][4096];	/* BUILD/ARCH/NAME.erofs */
	const char *disk_name[1 + TOPO_MAX_IMAGES];
	int ndisks;
};

/* NODE's kernel and images, of ARCH; 0, or -1 naming what is missing. */
int qemu_images(const struct qemu_opts *o, const struct arch_desc *arch,
		const struct topo_node *node, struct qemu_images *img);

/*
 * A NULL-terminated argv (malloc'ed strings) that boots node N, or NULL
 * with the reason on stderr.
 */
char **qemu_argv(const struct topo *t, int n, const struct qemu_opts *o);
void qemu_argv_free(char **argv);

/*
 * ARGV as one shell command, each option on a line with its value, every
 * word that needs it in single quotes: what `lab argv` prints and what a
 * run folder's `reproduce` holds.
 */
void qemu_argv_print(FILE *f, char **argv);

#endif
