// SPDX-License-Identifier: GPL-2.0
/*
 * lab: the topology launcher.  Its verbs (lint, arches, dump, graph, run,
 * shell, argv, boot) are described in verbs[] below; `lab help` prints them.
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
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "dump.h"
#include "../proto.h"
#include "run.h"
#include "topo.h"

/* One entry per verb: `lab help VERB` and `lab VERB --help` print it. */
struct verb {
	const char *name, *synopsis, *help;
};

static const char run_options[] =
	"  -a ARCH     arch of the nodes whose line names none (an arch/ARCH.conf)\n"
	"  -b BUILD    the build folder (default build)\n"
	"  -r RUNDIR   run folder (default BUILD/runs/NAME-TIMESTAMP-PID)\n"
	"  -k ACCEL    tcg (default) or kvm\n"
	"  -c          capture every NIC's frames to RUNDIR/NODE-NIC.pcap\n"
	"  -t SECONDS  boot timeout of every node (default 120)\n"
	"  -m MIB      memory of every node whose line has no mem= (64 to 4096)\n"
	"  -d          boot the debug kernels of make DEBUG=1\n"
	"Exit: 0 all passed, 1 a test failed, 2 the lab failed (bad file, missing\n"
	"image, boot failure, panic, timeout, signal).\n";

static const struct verb verbs[] = {
	{ "lint", "lint [-a ARCH] FILE...",
	  "Validate topology files; print every error as FILE:LINE: message.\n"
	  "Exit 2 on any error.\n" },
	{ "arches", "arches [-a ARCH] FILE",
	  "Print the guest arches FILE needs, one a line.\n" },
	{ "dump", "dump [-a ARCH] FILE",
	  "Print the topology as the parser understood it, one fact a line, with\n"
	  "every default filled in; tests/lab-dump holds it for every shipped\n"
	  "topology.\n" },
	{ "graph", "graph [-a ARCH] FILE",
	  "Print the topology as a Graphviz graph (dot -Tsvg).\n" },
	{ "run", "run [-a ARCH] [-b BUILD] [-r RUNDIR] [-k tcg|kvm] [-c] [-t SECONDS] [-m MIB] [-d] FILE",
	  "Boot every node of FILE, run its setup lines and tests, print KTAP\n"
	  "(also to RUNDIR/results.ktap), stop the nodes.\n" },
	{ "shell", "shell [-a ARCH] [-b BUILD] [-r RUNDIR] [-k tcg|kvm] [-c] [-t SECONDS] [-m MIB] [-d] FILE",
	  "Boot every node of FILE and run its setup lines, then read commands:\n"
	  "`NODE: COMMAND` runs COMMAND on NODE, `console NODE` attaches to its\n"
	  "serial console (Ctrl-] detaches), `nodes` lists the nodes, `quit` or\n"
	  "end of input stops the lab.\n" },
	{ "argv", "argv [-a ARCH] [-b BUILD] [-r RUNDIR] [-k tcg|kvm] [-c] [-m MIB] [-d] FILE",
	  "Print the QEMU command line of every node of FILE, as `lab run` would\n"
	  "start it, without building or booting anything; the run folder is\n"
	  "RUNDIR unless -r names one.  tests/lab-argv holds the expected output\n"
	  "for every shipped topology and arch.\n" },
	{ "boot", "boot [-a ARCH] [-b BUILD] [-r RUNDIR] [-k tcg|kvm] [-c] [-t SECONDS] [-m MIB] [-d]\n"
		  "               [-s CPUS] [-K IMAGE] [-e ARGS] [-q ARGS] [-T SECONDS] [-n] [-i NAME,...]\n"
		  "               COMMAND...",
	  "Boot one guest, node \"guest\" with eth1 and eth2 joined back to back,\n"
	  "run COMMAND in it with /bin/sh -c, its output on stdout as it arrives\n"
	  "(and in RUNDIR/results.ktap), and stop it.  The one-guest suites run\n"
	  "this way (make l2: lab boot -i kselftests /lab/tests/l2.sh); /lab/tests\n"
	  "and /lab/run hold the suites and payloads the guest userland ships.  -i\n"
	  "attaches payload images (BUILD/ARCH/NAME.erofs, mounted on /lab/NAME),\n"
	  "as a topology's images= does.\n" },
	{ "help", "help [VERB]", "Print the usage of VERB, or of every verb.\n" },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static void print_synopses(FILE *f)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		fprintf(f, "%s lab %s\n", i ? "      " : "usage:", verbs[i].synopsis);
	fprintf(f, "`lab help VERB` or `lab VERB --help` describes one.\n");
}

static const char boot_options[] =
	"  -s CPUS     vCPUs of the guest (1 to 8, default 1)\n"
	"  -K IMAGE    boot this kernel image, not BUILD's (a baseline, say)\n"
	"  -e ARGS     more kernel command line\n"
	"  -q ARGS     more QEMU options, split at spaces (-icount shift=0, say)\n"
	"  -T SECONDS  COMMAND's timeout (default 600); then it is killed\n"
	"  -n          print the guest's QEMU command line; boot nothing\n"
	"  -i NAME,... attach these payload images (BUILD/ARCH/NAME.erofs) on /lab/NAME\n"
	"Exit: 0 COMMAND exited 0, 1 it failed, 2 the lab failed (as for run, and\n"
	"when COMMAND timed out or the kernel reported a BUG, WARN, KASAN, lockdep\n"
	"or RCU problem on the console).\n";

static int verb_help(const struct verb *v)
{
	printf("usage: lab %s\n%s", v->synopsis, v->help);
	if (!strcmp(v->name, "boot"))
		printf("Options:\n%.*s%s", (int)(strstr(run_options, "Exit:") - run_options),
		       run_options, boot_options);
	else if (!strcmp(v->name, "run") || !strcmp(v->name, "shell") || !strcmp(v->name, "argv"))
		printf("Options:\n%s", run_options);
	return 0;
}

static int help(int argc, char **argv)
{
	const struct verb *v;

	if (argc < 1) {
		print_synopses(stdout);
		return 0;
	}
	v = find_verb(strcmp(argv[0], "--help") && strcmp(argv[0], "-h") ? argv[0] : "help");
	if (!v) {
		fprintf(stderr, "lab: help: unknown verb '%s'\n", argv[0]);
		return 2;
	}
	return verb_help(v);
}

static void usage(void)
{
	print_synopses(stderr);
	exit(2);
}

static int lint(int argc, char **argv, const char *arch, const char *known)
{
	struct topo *t = malloc(sizeof(*t));
	int i, errors = 0;

	if (!t)
		return 2;
	for (i = 0; i < argc; i++) {
		errors += topo_parse(t, argv[i], arch, known, stderr);
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
	char faults[256], *seed;
	int i, w, m;

	printf("graph \"%s\" {\n", t->path);
	printf("  node [shape=box, fontname=\"monospace\"];\n");
	for (i = 0; i < t->nnodes; i++)
		printf("  \"%s\" [label=\"%s\\n%s, %d MiB\"];\n", t->nodes[i].name,
		       t->nodes[i].name, t->nodes[i].arch, t->nodes[i].mem_mib);
	for (w = 0; w < t->nwires; w++) {
		const struct topo_wire *wr = &t->wires[w];

		/* The impairments, without the seed, label the wire. */
		fault_format(&wr->fault, faults, sizeof(faults));
		seed = strstr(faults, " seed=");
		if (seed)
			*seed = '\0';
		if (!wr->is_lan) {
			printf("  \"%s\" -- \"%s\" [taillabel=\"%s\", headlabel=\"%s\"%s%s%s];\n",
			       t->nodes[wr->members[0].node].name,
			       t->nodes[wr->members[1].node].name,
			       wr->members[0].ifname, wr->members[1].ifname,
			       faults[0] ? ", label=\"" : "", faults[0] ? faults + 1 : "",
			       faults[0] ? "\"" : "");
			continue;
		}
		printf("  \"lan %s\" [shape=ellipse, label=\"%s%s%s\"];\n", wr->name, wr->name,
		       faults[0] ? "\\n" : "", faults[0] ? faults + 1 : "");
		for (m = 0; m < wr->nmembers; m++)
			printf("  \"%s\" -- \"lan %s\" [taillabel=\"%s\"];\n",
			       t->nodes[wr->members[m].node].name, wr->name,
			       wr->members[m].ifname);
	}
	printf("}\n");
}

static int print_argvs(const struct topo *t, struct qemu_opts *o)
{
	char **argv;
	int i;

	o->dry_run = 1;
	for (i = 0; i < t->nnodes; i++) {
		argv = qemu_argv(t, i, o);
		if (!argv)
			return 2;
		printf("%s# %s (%s)\n", i ? "\n" : "", t->nodes[i].name, t->nodes[i].arch);
		qemu_argv_print(stdout, argv);
		qemu_argv_free(argv);
	}
	return 0;
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

/*
 * What a later reader needs to reproduce the run, before the command lines
 * (the QEMU versions follow them: lab_start asks once the guests boot).
 */
static void write_reproduce(const struct topo *t, const struct run_opts *o,
			    const char *command)
{
	char path[4096], line[256];
	FILE *f, *in;
	int i, j;

	snprintf(path, sizeof(path), "%s/reproduce", o->qemu.run_dir);
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "# topology: %s\n", t->path);
	if (command)
		fprintf(f, "# command: %s\n", command);
	fprintf(f, "# patch series: %s\n", getenv("LAB_SERIES_HASH") ?: "unknown");
	/* The impairments at the start, with their seeds (link-sets: the topology). */
	for (i = 0; i < t->nwires; i++) {
		fault_format(&t->wires[i].fault, line, sizeof(line));
		if (line[0])
			fprintf(f, "# %s %s (line %d):%s\n", t->wires[i].is_lan ? "lan" : "link",
				t->wires[i].name, t->wires[i].line, line);
	}
	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(t->nodes[i].arch, t->nodes[j].arch))
				break;
		if (j < i)
			continue;
		snprintf(path, sizeof(path), "%s/%s/kernel/include/config/kernel.release",
			 o->qemu.build, t->nodes[i].arch);
		in = fopen(path, "re");
		if (in && fgets(line, sizeof(line), in))
			fprintf(f, "# kernel %s: %s", t->nodes[i].arch, line);
		if (in)
			fclose(in);
	}
	fclose(f);
}

/*
 * The clone whose arch/ and configs/ describe the guests: $LAB_TOP, else
 * the one this binary was built in (it is TOP/build/host/lab, wherever
 * the clone has moved), else the path make compiled in.
 */
static const char *project_top(char *buf, size_t size)
{
	char arch_dir[4200], *slash;
	ssize_t len;
	int up;

	if (getenv("LAB_TOP"))
		return getenv("LAB_TOP");
	len = readlink("/proc/self/exe", buf, size - 1);
	if (len > 0) {
		buf[len] = '\0';
		for (up = 0; up < 3 && (slash = strrchr(buf, '/')); up++)
			*slash = '\0';
		snprintf(arch_dir, sizeof(arch_dir), "%s/arch", buf);
		if (up == 3 && buf[0] && !access(arch_dir, R_OK))
			return buf;
	}
	return LAB_TOP;
}

/* Every node's kernel and images exist: 0, or -1 naming what is missing. */
static int images_ready(const struct topo *t, const struct qemu_opts *o)
{
	struct qemu_images *img = malloc(sizeof(*img));
	struct arch_desc arch;
	int i, rc = 0;

	if (!img) {
		perror("lab: malloc");
		return -1;
	}
	for (i = 0; i < t->nnodes && !rc; i++)
		if (arch_load(o->top, t->nodes[i].arch, &arch) ||
		    qemu_images(o, &arch, &t->nodes[i], img))
			rc = -1;
	free(img);
	return rc;
}

/* lab run, shell and boot: the run folder, its reproduce file, the run. */
static int run_in_folder(const struct topo *t, struct run_opts *o, const char *run_dir,
			 const char *command, int command_timeout_s)
{
	char dir[3072], path[4096];
	struct sockaddr_un sun;
	int rc;

	lab_signals();	/* before the steps below, which may be slow */
	/*
	 * The run folder, its logs and the sockets QEMU makes in it (the
	 * console is a root shell in the guest) are the caller's alone.
	 */
	umask(077);
	if (!run_dir) {
		default_run_dir(dir, sizeof(dir), o->qemu.build, command ? "boot" : t->path);
		run_dir = dir;
	}
	o->qemu.run_dir = run_dir;
	if (images_ready(t, &o->qemu))
		return 2;
	/* The longest socket in it: RUN/NODE.console, RUN/w63.hub15.sock. */
	if (strlen(run_dir) + 1 + TOPO_NAME_MAX + sizeof(".console") > sizeof(sun.sun_path)) {
		fprintf(stderr, "lab: %s: run folder path too long for its unix sockets "
			"(at most %zu bytes)\n", run_dir,
			sizeof(sun.sun_path) - 1 - TOPO_NAME_MAX - sizeof(".console"));
		return 2;
	}
	if (mkdir_p(run_dir)) {
		fprintf(stderr, "lab: %s: %s\n", run_dir, strerror(errno));
		return 2;
	}
	write_reproduce(t, o, command);
	snprintf(path, sizeof(path), "%s/results.ktap", run_dir);
	o->results = fopen(path, "we");
	fprintf(stderr, "lab: run folder %s\n", run_dir);
	if (command) {
		o->stream_output = 1;
		rc = lab_boot(t, o, command, command_timeout_s);
	} else {
		rc = lab_run(t, o);
	}
	if (o->results)
		fclose(o->results);
	return rc;
}

/* What the command line asked for, beyond struct run_opts. */
struct cli {
	const char *verb, *arch, *run_dir;
	int mem, cpus, command_timeout_s, dry_run;
	const char *images;	/* lab boot -i NAME,NAME..., every -i joined */
	char images_buf[256];
	int boot_only;		/* an option only lab boot takes was given */
	char known[1024];	/* the arch names of arch/ */
	char command[PROTO_MAX_CMD + 2];	/* lab boot's COMMAND words, joined */
};

static int number(const char *opt, const char *s, int min, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s >= '0' && *s <= '9' && !*end && v >= min && v <= max)
		return v;
	fprintf(stderr, "lab: %s %s: expected a number from %d to %d\n", opt, s, min, max);
	exit(2);
}

/* -i NAME,...: each adds to the list; topo_one_guest() checks the names. */
static void add_images_option(struct cli *c, const char *list)
{
	size_t len = strlen(c->images_buf);

	if (len + 1 + strlen(list) >= sizeof(c->images_buf)) {
		fprintf(stderr, "lab: -i: more images than a guest can have\n");
		exit(2);
	}
	snprintf(c->images_buf + len, sizeof(c->images_buf) - len, "%s%s", len ? "," : "", list);
	c->images = c->images_buf;
}

/* The options that take a value, as getopt spells them. */
#define OPTIONS "a:b:r:k:ct:m:ds:K:e:q:T:ni:"

/* --help or -h among the options (lab boot: before COMMAND starts). */
static int wants_help(int argc, char **argv, const char *verb)
{
	const char *opt, *c;
	int i;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
		if (strcmp(verb, "boot"))
			continue;
		if (argv[i][0] != '-')
			return 0;
		/* -cT 5: flags, then an option whose value is the next word */
		for (c = argv[i] + 1; *c; c++) {
			opt = strchr(OPTIONS, *c);
			if (opt && opt[1] == ':') {
				i += !c[1];	/* else the rest of the word is its value */
				break;
			}
		}
	}
	return 0;
}

/*
 * Options into O and C; exits on bad usage.  Returns the index of the first
 * word that is not an option: the FILE, or lab boot's COMMAND (whose own
 * options are its own: lab boot stops at the first word).
 */
static int parse_options(int argc, char **argv, struct run_opts *o, struct cli *c)
{
	int opt;

	optind = 2;
	while ((opt = getopt(argc, argv, strcmp(c->verb, "boot") ? OPTIONS : "+" OPTIONS)) != -1) {
		switch (opt) {
		case 'a': c->arch = optarg; break;
		case 'b': o->qemu.build = optarg; break;
		case 'r':
			if (!*optarg) {
				fprintf(stderr, "lab: -r: an empty run folder name\n");
				exit(2);
			}
			c->run_dir = optarg;
			break;
		case 'k': o->qemu.accel = optarg; break;
		case 'c': o->qemu.capture = 1; break;
		case 't': o->boot_timeout_s = number("-t", optarg, 1, 86400); break;
		case 'm': c->mem = number("-m", optarg, 64, 4096); break;
		case 'd': o->qemu.debug = 1; break;
		case 's': c->cpus = number("-s", optarg, 1, 8); c->boot_only = 1; break;
		case 'K': o->qemu.kernel = optarg; c->boot_only = 1; break;
		case 'e': o->qemu.append = optarg; c->boot_only = 1; break;
		case 'q': o->qemu.qemu_extra = optarg; c->boot_only = 1; break;
		case 'T': c->command_timeout_s = number("-T", optarg, 1, 86400); c->boot_only = 1; break;
		case 'n': c->dry_run = 1; c->boot_only = 1; break;
		case 'i': add_images_option(c, optarg); c->boot_only = 1; break;
		default: usage();
		}
	}
	if (c->boot_only && strcmp(c->verb, "boot")) {
		fprintf(stderr, "lab: %s: -s, -K, -e, -q, -T, -n and -i are options of lab boot\n", c->verb);
		exit(2);
	}
	return optind;
}

/* The arch of nodes that name none: -a, else the host's; 0 or 2. */
static int pick_arch(struct run_opts *o, struct cli *c, char *native, size_t size)
{
	if (arch_names(o->qemu.top, c->known, sizeof(c->known)))
		return 2;
	if (!c->arch) {
		if (arch_native(o->qemu.top, c->known, native, size)) {
			fprintf(stderr, "lab: no arch in %s/arch builds with the host's gcc "
				"(cross_compile= empty): name one with -a\n", o->qemu.top);
			return 2;
		}
		c->arch = native;
	}
	if (!topo_arch_known(c->known, c->arch)) {
		fprintf(stderr, "lab: unknown arch '%s' (one of: %s)\n", c->arch, c->known);
		return 2;
	}
	if (strcmp(o->qemu.accel, "tcg") && strcmp(o->qemu.accel, "kvm")) {
		fprintf(stderr, "lab: unknown accelerator '%s' (tcg or kvm)\n", o->qemu.accel);
		return 2;
	}
	return 0;
}

/* lab boot's COMMAND: the remaining words, joined by spaces as ssh does. */
static void join_command(int argc, char **argv, struct cli *c)
{
	size_t len = 0;
	int i;

	if (argc < 1 || !argv[0][0]) {
		fprintf(stderr, "lab: boot: no COMMAND to run in the guest (lab help boot)\n");
		exit(2);
	}
	for (i = 0; i < argc; i++) {
		len += snprintf(c->command + len, sizeof(c->command) - len, "%s%s",
				i ? " " : "", argv[i]);
		if (len > PROTO_MAX_CMD) {
			fprintf(stderr, "lab: boot: COMMAND longer than %d bytes\n", PROTO_MAX_CMD);
			exit(2);
		}
	}
}

/* The verbs that read one topology file (or build lab boot's). */
static int topology_verb(struct topo *t, struct run_opts *o, struct cli *c)
{
	int i;

	for (i = 0; c->mem && i < t->nnodes; i++)
		if (!t->nodes[i].mem_given)
			t->nodes[i].mem_mib = c->mem;
	if (!strcmp(c->verb, "arches")) {
		arches(t);
		return 0;
	}
	if (!strcmp(c->verb, "dump")) {
		topo_dump(t, stdout);
		return 0;
	}
	if (!strcmp(c->verb, "graph")) {
		graph(t);
		return 0;
	}
	if (!strcmp(c->verb, "argv") || c->dry_run) {
		o->qemu.run_dir = c->run_dir ?: "RUNDIR";
		return print_argvs(t, &o->qemu);
	}
	if (!strcmp(c->verb, "boot"))
		return run_in_folder(t, o, c->run_dir, c->command, c->command_timeout_s);
	o->shell = !strcmp(c->verb, "shell");
	/* So that link-set works on any wire, typed at the prompt. */
	o->qemu.relay_all = o->shell;
	return run_in_folder(t, o, c->run_dir, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned long host_tsc_khz = 0;
	struct run_opts o = { .qemu = { .build = "build", .accel = "tcg",
					.host_tsc_khz = &host_tsc_khz },
			      .boot_timeout_s = 120 };
	static struct cli c = { .command_timeout_s = 600 };
	char native[ARCH_NAME_MAX], top[4096];
	struct topo *t;
	int i, rc;

	if (argc < 2)
		usage();
	c.verb = argv[1];
	if (!strcmp(c.verb, "help") || !strcmp(c.verb, "--help") || !strcmp(c.verb, "-h"))
		return help(argc - 2, argv + 2);
	if (!find_verb(c.verb)) {
		fprintf(stderr, "lab: unknown verb '%s'\n", c.verb);
		usage();
	}
	if (wants_help(argc, argv, c.verb))
		return verb_help(find_verb(c.verb));
	i = parse_options(argc, argv, &o, &c);
	o.qemu.top = project_top(top, sizeof(top));
	if (pick_arch(&o, &c, native, sizeof(native)))
		return 2;
	if (!strcmp(c.verb, "lint") && i < argc)
		return lint(argc - i, argv + i, c.arch, c.known);
	if (!strcmp(c.verb, "boot")) {
		join_command(argc - i, argv + i, &c);
	} else if (i != argc - 1) {
		fprintf(stderr, "lab: %s: expected %s, got %d (lab help %s)\n", c.verb,
			strcmp(c.verb, "lint") ? "one topology FILE" : "topology FILEs",
			argc - i, c.verb);
		return 2;
	}

	t = malloc(sizeof(*t));
	if (!t)
		return 2;
	if (!strcmp(c.verb, "boot")) {
		if (topo_one_guest(t, c.arch, c.mem, c.cpus, c.images)) {
			topo_free(t);
			free(t);
			return 2;
		}
	} else if (topo_parse(t, argv[i], c.arch, c.known, stderr)) {
		topo_free(t);
		free(t);
		return 2;
	}
	rc = topology_verb(t, &o, &c);
	topo_free(t);
	free(t);
	return rc;
}
