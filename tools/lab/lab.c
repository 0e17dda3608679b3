// SPDX-License-Identifier: GPL-2.0
/*
 * lab: the topology launcher.
 *
 *   lab lint   [-a ARCH] FILE...     validate, print every error, exit 2 on any
 *   lab arches [-a ARCH] FILE        the guest arches FILE needs, one a line
 *   lab graph  [-a ARCH] FILE        the topology in Graphviz DOT
 *   lab run    [options] FILE        boot the lab, run its tests, print KTAP
 *   lab shell  [options] FILE        boot the lab and take commands from stdin
 *
 * run/shell options: -a ARCH (default arch of the nodes), -b BUILD (the
 * build folder), -r RUNDIR (default BUILD/runs/NAME-TIMESTAMP), -k ACCEL
 * (tcg or kvm), -c (pcap capture per NIC), -t SECONDS (boot timeout),
 * -m MIB (memory of every node whose line has no mem=; default 256),
 * -d (boot the debug kernels of make DEBUG=1).
 *
 * Exit: 0 all passed, 1 a test failed, 2 the lab failed (bad file, missing
 * image, boot failure, panic, timeout, signal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "topo.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: lab lint [-a ARCH] FILE...\n"
		"       lab arches [-a ARCH] FILE\n"
		"       lab graph [-a ARCH] FILE\n"
		"       lab run|shell [-a ARCH] [-b BUILD] [-r RUNDIR] [-k tcg|kvm] [-c] [-t SECONDS]\n"
		"                     [-m MIB] [-d] FILE\n");
	exit(2);
}

static int lint(int argc, char **argv, const char *arch)
{
	struct topo *t = malloc(sizeof(*t));
	int i, errors = 0;

	if (!t)
		return 2;
	for (i = 0; i < argc; i++) {
		errors += topo_parse(t, argv[i], arch, stderr);
		topo_free(t);
	}
	free(t);
	return errors ? 2 : 0;
}

static void arches(const struct topo *t)
{
	int i, j;

	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(t->nodes[i].arch, t->nodes[j].arch))
				break;
		if (j == i)
			printf("%s\n", t->nodes[i].arch);
	}
}

static void graph(const struct topo *t)
{
	int i, w, m;

	printf("graph \"%s\" {\n", t->path);
	printf("  node [shape=box, fontname=\"monospace\"];\n");
	for (i = 0; i < t->nnodes; i++)
		printf("  \"%s\" [label=\"%s\\n%s, %d MiB\"];\n", t->nodes[i].name,
		       t->nodes[i].name, t->nodes[i].arch, t->nodes[i].mem_mib);
	for (w = 0; w < t->nwires; w++) {
		const struct topo_wire *wr = &t->wires[w];

		if (!wr->is_lan) {
			printf("  \"%s\" -- \"%s\" [taillabel=\"%s\", headlabel=\"%s\"];\n",
			       t->nodes[wr->members[0].node].name,
			       t->nodes[wr->members[1].node].name,
			       wr->members[0].ifname, wr->members[1].ifname);
			continue;
		}
		printf("  \"lan %s\" [shape=ellipse, label=\"%s\"];\n", wr->name, wr->name);
		for (m = 0; m < wr->nmembers; m++)
			printf("  \"%s\" -- \"lan %s\" [taillabel=\"%s\"];\n",
			       t->nodes[wr->members[m].node].name, wr->name,
			       wr->members[m].ifname);
	}
	printf("}\n");
}

/* build/runs/NAME-YYYYmmdd-HHMMSS-PID, NAME being the file's base name. */
static void default_run_dir(char *buf, size_t size, const char *build, const char *path)
{
	char *copy = strdup(path), *base, *dot, stamp[32];
	time_t now = time(NULL);

	base = basename(copy);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(buf, size, "%s/runs/%s-%s-%d", build, base, stamp, (int)getpid());
	free(copy);
}

static int mkdir_p(const char *path)
{
	char *copy = strdup(path), *p;
	int rc = 0;

	for (p = copy + 1; *p && !rc; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(copy, 0755) && errno != EEXIST)
				rc = -1;
			*p = '/';
		}
	if (!rc && mkdir(copy, 0755) && errno != EEXIST)
		rc = -1;
	free(copy);
	return rc;
}

/* What a later reader needs to reproduce the run, before the command lines. */
static void write_reproduce(const struct topo *t, const struct run_opts *o)
{
	char path[4096], line[256];
	FILE *f, *in;
	int i, j;

	snprintf(path, sizeof(path), "%s/reproduce", o->qemu.run_dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "# topology: %s\n", t->path);
	fprintf(f, "# patch series: %s\n", getenv("LAB_SERIES_HASH") ?: "unknown");
	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(t->nodes[i].arch, t->nodes[j].arch))
				break;
		if (j < i)
			continue;
		snprintf(path, sizeof(path), "%s/%s/kernel/include/config/kernel.release",
			 o->qemu.build, t->nodes[i].arch);
		in = fopen(path, "r");
		if (in && fgets(line, sizeof(line), in))
			fprintf(f, "# kernel %s: %s", t->nodes[i].arch, line);
		if (in)
			fclose(in);
		snprintf(path, sizeof(path), "%s --version",
			 strcmp(t->nodes[i].arch, "arm64") ? "qemu-system-x86_64" :
							     "qemu-system-aarch64");
		in = popen(path, "r");
		if (in && fgets(line, sizeof(line), in))
			fprintf(f, "# %s", line);
		if (in)
			pclose(in);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct run_opts o = { .qemu = { .build = "build", .accel = "tcg" },
			      .boot_timeout_s = 120 };
	const char *cmd, *arch = "x86_64", *run_dir = NULL;
	char dir[3072], path[4096];
	struct topo *t;
	int opt, rc, i, mem = 0;

	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "a:b:r:k:ct:m:d")) != -1) {
		switch (opt) {
		case 'a': arch = optarg; break;
		case 'b': o.qemu.build = optarg; break;
		case 'r': run_dir = optarg; break;
		case 'k': o.qemu.accel = optarg; break;
		case 'c': o.qemu.capture = 1; break;
		case 't': o.boot_timeout_s = atoi(optarg); break;
		case 'm': mem = atoi(optarg); break;
		case 'd': o.qemu.debug = 1; break;
		default: usage();
		}
	}
	if (strcmp(arch, "x86_64") && strcmp(arch, "arm64")) {
		fprintf(stderr, "lab: unknown arch '%s' (x86_64 or arm64)\n", arch);
		return 2;
	}
	if (strcmp(o.qemu.accel, "tcg") && strcmp(o.qemu.accel, "kvm")) {
		fprintf(stderr, "lab: unknown accelerator '%s' (tcg or kvm)\n", o.qemu.accel);
		return 2;
	}
	if (!strcmp(cmd, "lint"))
		return optind < argc ? lint(argc - optind, argv + optind, arch) : (usage(), 2);
	if (optind != argc - 1)
		usage();

	t = malloc(sizeof(*t));
	if (!t)
		return 2;
	if (topo_parse(t, argv[optind], arch, stderr)) {
		topo_free(t);
		free(t);
		return 2;
	}
	if (mem < 0 || (mem && (mem < 64 || mem > 4096))) {
		fprintf(stderr, "lab: -m %d: expected a number of MiB from 64 to 4096\n", mem);
		return 2;
	}
	for (i = 0; mem && i < t->nnodes; i++)
		if (!t->nodes[i].mem_given)
			t->nodes[i].mem_mib = mem;
	rc = 0;
	if (!strcmp(cmd, "arches")) {
		arches(t);
	} else if (!strcmp(cmd, "graph")) {
		graph(t);
	} else if (!strcmp(cmd, "run") || !strcmp(cmd, "shell")) {
		o.shell = !strcmp(cmd, "shell");
		if (!run_dir) {
			default_run_dir(dir, sizeof(dir), o.qemu.build, argv[optind]);
			run_dir = dir;
		}
		o.qemu.run_dir = run_dir;
		if (mkdir_p(run_dir)) {
			fprintf(stderr, "lab: %s: %s\n", run_dir, strerror(errno));
			rc = 2;
		} else {
			write_reproduce(t, &o);
			snprintf(path, sizeof(path), "%s/results.ktap", run_dir);
			o.results = fopen(path, "w");
			fprintf(stderr, "lab: run folder %s\n", run_dir);
			rc = lab_run(t, &o);
			if (o.results)
				fclose(o.results);
		}
	} else {
		usage();
	}
	topo_free(t);
	free(t);
	return rc;
}
