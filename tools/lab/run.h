/* SPDX-License-Identifier: GPL-2.0 */
/* Running a lab: boot every node, run setup and tests, print KTAP. */
#ifndef LAB_RUN_H
#define LAB_RUN_H

#include <stdio.h>

#include "qemu.h"
#include "topo.h"

struct run_opts {
	struct qemu_opts qemu;
	int boot_timeout_s;	/* from QEMU start to the agent's READY */
	int shell;		/* keep the lab up for commands from stdin */
	FILE *results;		/* a copy of the KTAP output, or NULL */
};

/* 0 all passed, 1 a test failed, 2 the lab itself failed. */
int lab_run(const struct topo *t, const struct run_opts *o);

#endif
