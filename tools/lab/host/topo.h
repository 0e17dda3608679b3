/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Topology files: the parsed form of a lab, and the parser that builds it
 * and validates it before any guest starts.
 */
#ifndef LAB_TOPO_H
#define LAB_TOPO_H

#include <stdio.h>

#include "fault.h"

#define TOPO_MAX_NODES	32
#define TOPO_MAX_PORTS	8	/* NICs per node */
#define TOPO_MAX_WIRES	64	/* links + lans */
#define TOPO_MAX_MEMBERS 16	/* endpoints of one lan */
#define TOPO_MAX_TESTS	128
#define TOPO_NAME_MAX	16	/* node and interface names, with the NUL */
#define TOPO_MAX_IMAGES	4	/* payload images attached to a node */
/* The image every guest boots from (root=); not one to attach. */
#define TOPO_ROOT_IMAGE	"userland"

struct topo_port {		/* one NIC of a node */
	char ifname[TOPO_NAME_MAX];
	int wire;		/* index into topo.wires */
	int member;		/* position on that wire */
};

struct topo_setup {		/* one setup line: its own shell command */
	char *command;
	int timeout_s;
	int line;
};

struct topo_node {
	char name[TOPO_NAME_MAX];
	char arch[16];		/* "" until defaulted: an arch/NAME.conf */
	int mem_mib;
	int mem_given;		/* mem= was in the file */
	int cpus;
	/* Payload images (BUILD/ARCH/NAME.erofs), mounted on /lab/NAME. */
	char images[TOPO_MAX_IMAGES][TOPO_NAME_MAX];
	int nimages;
	int line;
	struct topo_setup *setup;	/* the indented lines, in order */
	int nsetup;
	struct topo_port ports[TOPO_MAX_PORTS];
	int nports;
};

struct topo_endpoint {
	int node;
	char ifname[TOPO_NAME_MAX];
};

struct topo_wire {		/* a link (2 members) or a lan (2 or more) */
	char name[TOPO_NAME_MAX + 8];
	int is_lan;
	int mtu;		/* 0: the default */
	struct fault fault;	/* impairments at the start */
	int relayed;		/* frames pass the launcher: a lan, faults, link-set */
	int line;
	struct topo_endpoint members[TOPO_MAX_MEMBERS];
	int nmembers;
};

enum topo_step {
	TOPO_TEST,		/* test "DESCRIPTION" NODE: COMMAND */
	TOPO_LINK_DOWN,		/* link-down NODE:IFACE */
	TOPO_LINK_UP,		/* link-up NODE:IFACE */
	TOPO_LINK_SET,		/* link-set NODE:IFACE KEY=VALUE... */
};

struct topo_test {		/* a test, or a step of the lab between tests */
	enum topo_step step;
	char *description;	/* tests only */
	int node;
	int port;		/* the link steps' NIC: an index into ports */
	char *command;		/* a test's command; link-set's KEY=VALUEs */
	int timeout_s;
	int until_s;		/* rerun a failing test until this many s passed */
	int line;
};

struct topo {
	const char *path;
	struct topo_node nodes[TOPO_MAX_NODES];
	int nnodes;
	struct topo_wire wires[TOPO_MAX_WIRES];
	int nwires;
	struct topo_test tests[TOPO_MAX_TESTS];
	int ntests;
};

/*
 * Parses and validates PATH into *t; nodes without arch= get DEFAULT_ARCH,
 * arch= must name one of ARCHES (topo_arch_known).  Every error is printed to ERR as "PATH:LINE: message" (not only the
 * first); returns the number of errors.
 */
int topo_parse(struct topo *t, const char *path, const char *default_arch,
	       const char *arches, FILE *err);
/* The same for an open stream; PATH only names it in messages. */
int topo_parse_stream(struct topo *t, FILE *f, const char *path,
		      const char *default_arch, const char *arches, FILE *err);

/* Whether NAME is one of ARCHES, a space-separated list of arch names. */
int topo_arch_known(const char *arches, const char *name);

void topo_free(struct topo *t);

/*
 * The topology of lab boot, as if parsed: one node "guest" of ARCH whose
 * eth1 and eth2 are joined back to back by a link, with IMAGES attached
 * (NAME,NAME..., or NULL).  0, or -1 with the reason on stderr.
 */
int topo_one_guest(struct topo *t, const char *arch, int mem_mib, int cpus,
		   const char *images);
/* "link-down", "link-up", "link-set", as written in a file; "test". */
const char *topo_step_name(enum topo_step step);
/* The tests of T, not counting its link steps. */
int topo_ntests(const struct topo *t);
/*
 * LINE, a link-down, link-up or link-set statement typed in lab shell, into
 * *STEP (its command allocated); 0, or -1 with the reason on ERR.
 */
int topo_parse_step(const struct topo *t, const char *line, struct topo_test *step,
		    FILE *err);
/* Index of the node called NAME, or -1. */
int topo_find_node(const struct topo *t, const char *name);

#endif
