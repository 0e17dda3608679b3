// SPDX-License-Identifier: GPL-2.0
/*
 * lab dump: the parsed topology, one fact a line, every default filled in
 * (arch, memory, CPUs, timeouts, MACs, the mtu= setup lines).  What the
 * parser understood, for golden tests (tests/lab-dump) and for a tester
 * checking a new file.
 */
#include <stdio.h>

#include "dump.h"
#include "qemu.h"

static void dump_node(const struct topo *t, int n, FILE *f)
{
	const struct topo_node *node = &t->nodes[n];
	char mac[18];
	int i;

	fprintf(f, "node %s arch=%s mem=%d cpus=%d", node->name, node->arch,
		node->mem_mib, node->cpus);
	for (i = 0; i < node->nimages; i++)
		fprintf(f, "%s%s", i ? "," : " images=", node->images[i]);
	fprintf(f, " (line %d)\n", node->line);
	for (i = 0; i < node->nports; i++) {
		qemu_mac(n, i, mac);
		fprintf(f, "  nic %s mac=%s wire=%s\n", node->ports[i].ifname, mac,
			t->wires[node->ports[i].wire].name);
	}
	for (i = 0; i < node->nsetup; i++)
		fprintf(f, "  setup timeout=%d (line %d): %s\n", node->setup[i].timeout_s,
			node->setup[i].line, node->setup[i].command);
}

static void dump_wire(const struct topo *t, const struct topo_wire *w, FILE *f)
{
	char faults[256];
	int m;

	fprintf(f, "%s %s", w->is_lan ? "lan" : "link", w->name);
	for (m = 0; m < w->nmembers; m++)
		fprintf(f, " %s:%s", t->nodes[w->members[m].node].name, w->members[m].ifname);
	if (w->mtu)
		fprintf(f, " mtu=%d", w->mtu);
	fault_format(&w->fault, faults, sizeof(faults));
	fprintf(f, "%s%s (line %d)\n", faults, w->relayed ? " relayed" : "", w->line);
}

/* Test NUM (counting tests only), or a link step between tests. */
static void dump_step(const struct topo *t, const struct topo_test *tt, int num, FILE *f)
{
	const struct topo_node *node = &t->nodes[tt->node];

	if (tt->step != TOPO_TEST) {
		fprintf(f, "%s %s:%s%s%s (line %d)\n", topo_step_name(tt->step), node->name,
			node->ports[tt->port].ifname, tt->command ? " " : "",
			tt->command ?: "", tt->line);
		return;
	}
	fprintf(f, "test %d on %s timeout=%d", num, node->name, tt->timeout_s);
	if (tt->until_s)
		fprintf(f, " until=%d", tt->until_s);
	fprintf(f, " (line %d): \"%s\": %s\n", tt->line, tt->description, tt->command);
}

void topo_dump(const struct topo *t, FILE *f)
{
	int i, num = 0;

	for (i = 0; i < t->nnodes; i++)
		dump_node(t, i, f);
	for (i = 0; i < t->nwires; i++)
		dump_wire(t, &t->wires[i], f);
	for (i = 0; i < t->ntests; i++)
		dump_step(t, &t->tests[i], t->tests[i].step == TOPO_TEST ? ++num : 0, f);
}
