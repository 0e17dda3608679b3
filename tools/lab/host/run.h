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
	int stream_output;	/* commands' output to stdout as it arrives */
};

struct lab;

/*
 * SIGINT, SIGTERM and SIGHUP from now on end the lab with exit 2 (at its
 * next step, before any guest if need be); lab_start calls it too.
 */
void lab_signals(void);

/*
 * Starts every node's QEMU and the lan hubs (command lines appended to
 * RUN_DIR/reproduce); NULL, with the reason on stderr, if one could not be
 * started, and nothing left running.
 */
struct lab *lab_start(const struct topo *t, const struct run_opts *o);
/* Waits for every agent, then runs the setup lines; -1 if the lab failed. */
int lab_setup(struct lab *l);
/*
 * Runs CMD on node N, its whole output into RUN_DIR/LOG if LOG is not NULL;
 * returns its status, -1 if it timed out (and was killed), -2 if the node
 * is gone or the lab failed.
 */
int lab_command(struct lab *l, int n, const char *cmd, int timeout_s, const char *log);
/*
 * The end of node N's last command's output (at least its last 16 KiB), or
 * NULL; always NULL with stream_output.
 */
const char *lab_output(const struct lab *l, int n);
/* Why the lab failed (a node panicked, a signal, ...), or NULL. */
const char *lab_failure(const struct lab *l);
/* Stops every QEMU and frees L. */
void lab_stop(struct lab *l);

/*
 * The whole run: start, setup, tests (or the shell), stop, with KTAP on
 * stdout and in o->results.  0 all passed, 1 a test failed, 2 the lab
 * itself failed.
 */
int lab_run(const struct topo *t, const struct run_opts *o);

/*
 * lab boot: one guest running COMMAND, its output on stdout as it arrives;
 * the guest is the one-node topology topo_one_guest() fills in.  0 the
 * command exited 0, 1 it failed, 2 the lab failed (as lab_run).
 */
int lab_boot(const struct topo *t, const struct run_opts *o, const char *command,
	     int timeout_s);

#endif
