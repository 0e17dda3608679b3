// SPDX-License-Identifier: GPL-2.0
/*
 * The topology file parser.  One pass reads statements and remembers names;
 * a second pass resolves node references, so statements may come in any
 * order.  Errors never stop the parse: the user gets all of them at once.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto.h"
#include "topo.h"

#define DEFAULT_MEM_MIB		256
#define DEFAULT_TEST_TIMEOUT_S	60
#define DEFAULT_SETUP_TIMEOUT_S	120

struct error {
	int line;
	int seq;		/* keeps errors of one line in the order found */
	char *msg;
};

/* A file of junk must not make a flood: the first ones, and a count. */
#define MAX_ERRORS_KEPT	100

struct parser {
	struct topo *t;
	struct error *errs;
	int errors;		/* all of them */
	int kept;		/* in errs, at most MAX_ERRORS_KEPT */
	int line;
	int cur_node;		/* node whose setup lines may follow, or -1 */
	const char *arches;	/* the known arches, space-separated */
	/* endpoints as written, resolved in the second pass */
	char ep_node[TOPO_MAX_WIRES][TOPO_MAX_MEMBERS][TOPO_NAME_MAX];
	char test_node[TOPO_MAX_TESTS][TOPO_NAME_MAX];
	char step_if[TOPO_MAX_TESTS][TOPO_NAME_MAX];	/* a link step's NIC */
};

/* Errors are collected and printed sorted by line once the file is read. */
static void error_at(struct parser *p, int line, const char *fmt, ...)
{
	struct error *e;
	va_list ap;

	if (p->errors++ >= MAX_ERRORS_KEPT)
		return;
	e = realloc(p->errs, (p->kept + 1) * sizeof(*e));
	if (!e) {
		perror("lab: realloc");
		exit(2);
	}
	p->errs = e;
	e += p->kept;
	e->line = line;
	e->seq = p->kept++;
	va_start(ap, fmt);
	if (vasprintf(&e->msg, fmt, ap) < 0)
		e->msg = NULL;
	va_end(ap);
}

static int by_line(const void *a, const void *b)
{
	const struct error *x = a, *y = b;

	return x->line != y->line ? x->line - y->line : x->seq - y->seq;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("lab: strdup");
		exit(2);
	}
	return d;
}

/* Splits off the next blank-separated word; NULL at the end of the line. */
static char *next_word(char **s)
{
	char *w;

	*s += strspn(*s, " \t");
	if (!**s)
		return NULL;
	w = *s;
	*s += strcspn(*s, " \t");
	if (**s)
		*(*s)++ = '\0';
	return w;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= TOPO_NAME_MAX || !islower((unsigned char)s[0]))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

/* A Linux interface name the lab may create: short, plain, not lo. */
static const char *bad_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0)
		return "empty interface name";
	if (n >= TOPO_NAME_MAX)
		return "interface name longer than 15 characters";
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_.") != n)
		return "interface name may use only letters, digits, '-', '_' and '.'";
	if (!strcmp(s, "lo"))
		return "'lo' is the loopback device, not a NIC";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "interface name cannot be '.' or '..'";
	if (!strcmp(s, "all") || !strcmp(s, "default"))
		return "'all' and 'default' are the kernel's own names (net.ipv4.conf.all, .default)";
	if (!strncmp(s, "labtmp", 6))
		return "interface names starting with 'labtmp' are the guest init's own";
	return NULL;
}

/*
 * NAME, the node a link, lan, test or link step refers to, into NODE
 * (TOPO_NAME_MAX) for pass two; 0, or -1 after an error.  A name longer
 * than a node's may be is no node, not the node its first 15 characters
 * name.
 */
static int node_ref(struct parser *p, const char *name, char *node)
{
	size_t len = strlen(name);

	if (len >= TOPO_NAME_MAX) {
		error_at(p, p->line, "unknown node '%s' (node names have at most 15 characters)", name);
		return -1;
	}
	memcpy(node, name, len + 1);
	return 0;
}

/* Parses "key=N" with N in [min, max]; 0 and an error otherwise. */
static int number_option(struct parser *p, const char *key, const char *val,
			 int min, int max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	/* digits only: strtol would take "+1", " 1" and "-0" */
	if (!isdigit((unsigned char)val[0]) || errno || *end || v < min || v > max) {
		error_at(p, p->line, "%s=%s: expected a number from %d to %d",
			 key, val, min, max);
		return 0;
	}
	return (int)v;
}

int topo_find_node(const struct topo *t, const char *name)
{
	int i;

	for (i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return i;
	return -1;
}

/* An images= error: FILE:LINE for a topology, "lab: -i" for lab boot's. */
static void image_error(struct parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p)
		error_at(p, p->line, "%s", msg);
	else
		fprintf(stderr, "lab: -i: %s\n", msg);
}

/*
 * images=NAME[,NAME...]: the payload images a node gets besides its root;
 * whether BUILD/ARCH/NAME.erofs exists is checked at boot, not here.  Adds
 * to N, reporting bad names and duplicates; NULL P: lab boot's -i.
 */
static int add_images(struct parser *p, struct topo_node *n, const char *list)
{
	char name[64];
	const char *c = list;
	size_t len;
	int i, bad = 0;

	do {
		len = strcspn(c, ",");
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), c);
		if (!valid_name(name)) {
			image_error(p, "bad image name '%s' (a lower-case letter, then letters, digits, '-' or '_'; at most 15)", name);
			bad = 1;
		} else if (!strcmp(name, TOPO_ROOT_IMAGE)) {
			image_error(p, "image '%s' is every node's root already", name);
			bad = 1;
		} else if (!strcmp(name, "run") || !strcmp(name, "tests")) {
			image_error(p, "image '%s' would hide the userland's /lab/%s", name, name);
			bad = 1;
		} else if (n->nimages == TOPO_MAX_IMAGES) {
			image_error(p, "more than %d images", TOPO_MAX_IMAGES);
			return -1;
		} else {
			for (i = 0; i < n->nimages && strcmp(n->images[i], name); i++)
				;
			if (i < n->nimages) {
				image_error(p, "image '%s' named twice", name);
				bad = 1;
			} else {
				/* valid_name() bounds it to TOPO_NAME_MAX */
				memcpy(n->images[n->nimages++], name, strlen(name) + 1);
			}
		}
		c += len;
	} while (*c++);
	return bad ? -1 : 0;
}

static const char *const node_options[] = { "arch", "mem", "cpus", "images", NULL };
static const char *const test_options[] = { "timeout", "until", NULL };

/*
 * Whether option KEY, one of KNOWN, already appeared on this line (SEEN
 * holds a bit per known key): reported, since the last one would win.
 */
static int given_twice(struct parser *p, unsigned int *seen, const char *key,
		       const char *const *known)
{
	int i;

	for (i = 0; known[i] && strcmp(known[i], key); i++)
		;
	if (!known[i])
		return 0;
	if (*seen & (1u << i)) {
		error_at(p, p->line, "%s= given twice", key);
		return 1;
	}
	*seen |= 1u << i;
	return 0;
}

static void parse_node(struct parser *p, char *rest)
{
	struct topo *t = p->t;
	struct topo_node *n;
	unsigned int seen = 0;
	char *w, *eq;

	w = next_word(&rest);
	if (!w) {
		error_at(p, p->line, "node needs a name");
		return;
	}
	if (!valid_name(w)) {
		error_at(p, p->line, "bad node name '%s' (a lower-case letter, then letters, digits, '-' or '_'; at most 15)", w);
	} else if (topo_find_node(t, w) >= 0) {
		error_at(p, p->line, "duplicate node '%s' (first defined on line %d)",
			 w, t->nodes[topo_find_node(t, w)].line);
		p->cur_node = -1;
		return;
	}
	if (t->nnodes == TOPO_MAX_NODES) {
		error_at(p, p->line, "more than %d nodes", TOPO_MAX_NODES);
		p->cur_node = -1;
		return;
	}
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", w);
	n->line = p->line;
	n->mem_mib = DEFAULT_MEM_MIB;
	n->cpus = 1;
	p->cur_node = t->nnodes++;

	while ((w = next_word(&rest))) {
		eq = strchr(w, '=');
		if (!eq) {
			error_at(p, p->line, "unknown node option '%s' (arch=, mem=, cpus=, images=)", w);
			continue;
		}
		*eq++ = '\0';
		if (given_twice(p, &seen, w, node_options))
			continue;
		if (!strcmp(w, "arch")) {
			if (!topo_arch_known(p->arches, eq))
				error_at(p, p->line, "unknown arch '%s' (one of: %s)", eq, p->arches);
			else
				snprintf(n->arch, sizeof(n->arch), "%s", eq);
		} else if (!strcmp(w, "mem")) {
			n->mem_mib = number_option(p, w, eq, 64, 4096) ?: n->mem_mib;
			n->mem_given = 1;
		} else if (!strcmp(w, "cpus")) {
			n->cpus = number_option(p, w, eq, 1, 8) ?: n->cpus;
		} else if (!strcmp(w, "images")) {
			add_images(p, n, eq);
		} else {
			error_at(p, p->line, "unknown node option '%s=' (arch=, mem=, cpus=, images=)", w);
		}
	}
}

/*
 * An indented line: its own command, after an optional "timeout=S " (a
 * shell command cannot start that way usefully: it would only set a
 * variable for the next word).
 */
static void add_setup_line(struct parser *p, const char *line)
{
	struct topo_node *n = &p->t->nodes[p->cur_node];
	int timeout_s = DEFAULT_SETUP_TIMEOUT_S;
	struct topo_setup *s;
	char value[16];
	size_t len;

	line += strspn(line, " \t");
	if (!strncmp(line, "timeout=", 8)) {
		len = strcspn(line + 8, " \t");
		snprintf(value, sizeof(value), "%.*s", (int)(len < sizeof(value) ? len : sizeof(value) - 1),
			 line + 8);
		timeout_s = number_option(p, "timeout", value, 1, 3600) ?: timeout_s;
		line += 8 + len;
		line += strspn(line, " \t");
		if (!*line)
			error_at(p, p->line, "setup line has a timeout= but no command");
	}
	if (strlen(line) > PROTO_MAX_CMD)
		error_at(p, p->line, "command longer than %d bytes", PROTO_MAX_CMD);

	s = realloc(n->setup, (n->nsetup + 1) * sizeof(*s));
	if (!s) {
		perror("lab: realloc");
		exit(2);
	}
	n->setup = s;
	s[n->nsetup].command = xstrdup(line);
	s[n->nsetup].timeout_s = timeout_s;
	s[n->nsetup].line = p->line;
	n->nsetup++;
}

/*
 * W, NODE:IFACE with its colon at COLON, into NODE and IFNAME
 * (TOPO_NAME_MAX each), the node for pass two; 0, or -1 after an error.
 */
static int read_endpoint(struct parser *p, char *w, char *colon, char *node, char *ifname)
{
	const char *why;

	*colon = '\0';
	why = bad_ifname(colon + 1);
	if (why) {
		error_at(p, p->line, "%s:%s: %s", w, colon + 1, why);
		return -1;
	}
	if (node_ref(p, w, node))
		return -1;
	memcpy(ifname, colon + 1, strlen(colon + 1) + 1);
	return 0;
}

/* "node:ifname" into wire member M, the node name kept for pass two. */
static void parse_endpoint(struct parser *p, int wire, char *w)
{
	struct topo_wire *wr = &p->t->wires[wire];
	char *colon = strchr(w, ':');

	if (!colon || colon == w || !colon[1]) {
		error_at(p, p->line, "'%s' is not NODE:IFACE", w);
		return;
	}
	if (wr->nmembers == TOPO_MAX_MEMBERS) {
		error_at(p, p->line, "more than %d members on one wire", TOPO_MAX_MEMBERS);
		return;
	}
	if (!read_endpoint(p, w, colon, p->ep_node[wire][wr->nmembers],
			   wr->members[wr->nmembers].ifname))
		wr->nmembers++;
}

static struct topo_wire *new_wire(struct parser *p)
{
	struct topo_wire *wr;

	if (p->t->nwires == TOPO_MAX_WIRES) {
		error_at(p, p->line, "more than %d links and lans", TOPO_MAX_WIRES);
		return NULL;
	}
	wr = &p->t->wires[p->t->nwires];
	memset(wr, 0, sizeof(*wr));
	wr->line = p->line;
	wr->fault.seed = FAULT_SEED_DEFAULT;
	return wr;
}

/*
 * The NODE:IFACE members and the options (mtu=, impairments) of wire IDX;
 * returns the count of members.
 */
static int parse_members(struct parser *p, int idx, char *rest, const char *kind)
{
	struct topo_wire *wr = &p->t->wires[idx];
	unsigned int seen = 0, bit;
	int members = 0, r;
	char *w, *eq, err[160];
	const char *why;

	while ((w = next_word(&rest))) {
		eq = strchr(w, '=');
		if (eq && !strchr(w, ':')) {
			*eq++ = '\0';
			if (!strcmp(w, "mtu")) {
				r = 1;
				bit = 1u << 31;	/* after the impairment keys' numbers */
			} else {
				r = fault_option(&wr->fault, w, eq, err, sizeof(err));
				bit = r > 0 ? 1u << fault_key(w) : 0;
			}
			if (seen & bit)
				error_at(p, p->line, "%s= given twice", w);
			seen |= bit;
			if (!strcmp(w, "mtu"))
				wr->mtu = number_option(p, w, eq, 68, 65535);
			else if (r < 0)
				error_at(p, p->line, "%s", err);
			else if (!r)
				error_at(p, p->line, "unknown %s option '%s=' (mtu=, delay=, jitter=, loss=, duplicate=, reorder=, rate=, seed=)",
					 kind, w);
			continue;
		}
		members++;
		parse_endpoint(p, idx, w);
	}
	why = fault_check(&wr->fault);
	if (why)
		error_at(p, p->line, "%s", why);
	wr->relayed = wr->is_lan || fault_active(&wr->fault);
	return members;
}

static void parse_link(struct parser *p, char *rest)
{
	struct topo_wire *wr = new_wire(p);
	int idx = p->t->nwires, members;

	if (!wr)
		return;
	p->t->nwires++;
	snprintf(wr->name, sizeof(wr->name), "link%d", idx);
	members = parse_members(p, idx, rest, "link");
	if (members != 2)
		error_at(p, p->line, "a link joins exactly two NODE:IFACE, found %d", members);
}

static void parse_lan(struct parser *p, char *rest)
{
	struct topo_wire *wr;
	int idx = p->t->nwires, members, i;
	char *name = next_word(&rest);

	if (!name || strchr(name, ':')) {
		error_at(p, p->line, "lan needs a name before its members");
		return;
	}
	if (!valid_name(name))
		error_at(p, p->line, "bad lan name '%s'", name);
	for (i = 0; i < p->t->nwires; i++)
		if (p->t->wires[i].is_lan && !strcmp(p->t->wires[i].name, name))
			error_at(p, p->line, "duplicate lan '%s' (first defined on line %d)",
				 name, p->t->wires[i].line);
	wr = new_wire(p);
	if (!wr)
		return;
	p->t->nwires++;
	wr->is_lan = 1;
	snprintf(wr->name, sizeof(wr->name), "%.15s", name);
	members = parse_members(p, idx, rest, "lan");
	if (members < 2)
		error_at(p, p->line, "lan '%s' needs at least two members, found %d", name, members);
}

/* test "DESCRIPTION" [timeout=S] [until=S] NODE: COMMAND */
static void parse_test(struct parser *p, char *rest)
{
	struct topo_test *tt;
	char *desc, *out, *w, *eq;
	int idx = p->t->ntests;
	unsigned int seen = 0;

	rest += strspn(rest, " \t");
	if (*rest != '"') {
		error_at(p, p->line, "test needs a \"DESCRIPTION\" in double quotes");
		return;
	}
	desc = out = ++rest;
	for (;;) {
		if (!*rest) {
			error_at(p, p->line, "unterminated quote in test description");
			return;
		}
		if (*rest == '\\' && (rest[1] == '"' || rest[1] == '\\'))
			rest++;
		else if (*rest == '"')
			break;
		*out++ = *rest++;
	}
	rest++;
	*out = '\0';
	/* KTAP reads "# SKIP" or "# TODO" after a description as a directive */
	if (strchr(desc, '#'))
		error_at(p, p->line, "'#' in a test description (KTAP would read '# SKIP' or '# TODO' there)");
	if (idx == TOPO_MAX_TESTS) {
		error_at(p, p->line, "more than %d tests", TOPO_MAX_TESTS);
		return;
	}
	tt = &p->t->tests[idx];
	memset(tt, 0, sizeof(*tt));
	tt->line = p->line;
	tt->node = -1;
	tt->timeout_s = DEFAULT_TEST_TIMEOUT_S;

	for (;;) {
		w = next_word(&rest);
		if (!w) {
			error_at(p, p->line, "test has no node (expected NODE: COMMAND after the description)");
			return;
		}
		if (w[strlen(w) - 1] == ':')
			break;
		eq = strchr(w, '=');
		if (eq) {
			*eq++ = '\0';
			if (given_twice(p, &seen, w, test_options))
				continue;
			if (!strcmp(w, "timeout"))
				tt->timeout_s = number_option(p, w, eq, 1, 3600) ?: tt->timeout_s;
			else if (!strcmp(w, "until"))
				tt->until_s = number_option(p, w, eq, 1, 3600);
			else
				error_at(p, p->line, "unknown test option '%s=' (timeout=, until=)", w);
			continue;
		}
		error_at(p, p->line, "test has no node (expected NODE: COMMAND, found '%s')", w);
		return;
	}
	w[strlen(w) - 1] = '\0';
	rest += strspn(rest, " \t");
	if (!*w) {
		error_at(p, p->line, "test has no node before ':'");
		return;
	}
	if (!*rest) {
		error_at(p, p->line, "test on node '%s' has no command", w);
		return;
	}
	if (strlen(rest) > PROTO_MAX_CMD)
		error_at(p, p->line, "command longer than %d bytes", PROTO_MAX_CMD);
	if (node_ref(p, w, p->test_node[idx]))
		return;
	tt->description = xstrdup(desc);
	tt->command = xstrdup(rest);
	p->t->ntests++;
}

/* The link step a statement's keyword names, or TOPO_TEST if none. */
static enum topo_step step_named(const char *kw)
{
	enum topo_step s;

	for (s = TOPO_LINK_DOWN; s <= TOPO_LINK_SET; s++)
		if (kw && !strcmp(kw, topo_step_name(s)))
			return s;
	return TOPO_TEST;
}

/*
 * link-down NODE:IFACE, link-up NODE:IFACE, link-set NODE:IFACE KEY=VALUE...
 * into *TT, the node and interface names into NODE and IFNAME for
 * resolve_step; 0, or -1 after an error.
 */
static int read_step(struct parser *p, const char *kw, char *rest, struct topo_test *tt,
		     char *node, char *ifname)
{
	char *w = next_word(&rest), *colon, err[160];
	struct fault scratch = { 0 };

	memset(tt, 0, sizeof(*tt));
	tt->line = p->line;
	tt->node = -1;
	tt->step = step_named(kw);
	colon = w ? strchr(w, ':') : NULL;
	if (!colon || colon == w || !colon[1]) {
		error_at(p, p->line, "%s needs NODE:IFACE, found '%s'", kw, w ? w : "");
		return -1;
	}
	if (read_endpoint(p, w, colon, node, ifname))
		return -1;
	rest += strspn(rest, " \t");
	if (tt->step != TOPO_LINK_SET) {
		if (*rest)
			error_at(p, p->line, "%s takes only NODE:IFACE, found '%s'", kw, rest);
		return *rest ? -1 : 0;
	}
	if (!*rest) {
		error_at(p, p->line, "link-set needs KEY=VALUE impairments (loss=30%%)");
		return -1;
	}
	if (fault_set(&scratch, rest, err, sizeof(err))) {
		error_at(p, p->line, "%s", err);
		return -1;
	}
	tt->command = xstrdup(rest);
	return 0;
}

static void parse_step(struct parser *p, const char *kw, char *rest)
{
	int idx = p->t->ntests;

	if (idx == TOPO_MAX_TESTS) {
		error_at(p, p->line, "more than %d tests and link steps", TOPO_MAX_TESTS);
		return;
	}
	if (!read_step(p, kw, rest, &p->t->tests[idx], p->test_node[idx], p->step_if[idx]))
		p->t->ntests++;
}

static void parse_line(struct parser *p, char *line)
{
	char *rest = line, *kw;
	size_t len;

	len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[--len] = '\0';
	if (len && line[len - 1] == '\r')	/* CRLF files are fine */
		line[--len] = '\0';
	if (strchr(line, '\r')) {
		error_at(p, p->line, "carriage return inside the line (what follows it would be hidden)");
		return;
	}
	if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
		return;
	if (line[len - 1] == '\\')
		error_at(p, p->line, "line ends in '\\': there is no line continuation");
	if (line[0] == ' ' || line[0] == '\t') {
		if (p->cur_node < 0)
			error_at(p, p->line, "indented line does not follow a node");
		else
			add_setup_line(p, line);
		return;
	}
	p->cur_node = -1;
	kw = next_word(&rest);
	if (!strcmp(kw, "node"))
		parse_node(p, rest);
	else if (!strcmp(kw, "link"))
		parse_link(p, rest);
	else if (!strcmp(kw, "lan"))
		parse_lan(p, rest);
	else if (!strcmp(kw, "test"))
		parse_test(p, rest);
	else if (step_named(kw) != TOPO_TEST)
		parse_step(p, kw, rest);
	else
		error_at(p, p->line, "unknown statement '%s' (node, link, lan, test, link-down, link-up, link-set)",
			 kw);
}

/* A link step's NIC: the node (resolved) must have IFNAME on a wire. */
static void resolve_step(struct parser *p, struct topo_test *tt, const char *ifname)
{
	const struct topo_node *n = &p->t->nodes[tt->node];
	int i;

	for (i = 0; i < n->nports; i++)
		if (!strcmp(n->ports[i].ifname, ifname))
			break;
	if (i == n->nports) {
		error_at(p, tt->line, "%s:%s is on no link or lan", n->name, ifname);
		tt->node = -1;
		return;
	}
	tt->port = i;
}

/*
 * A wire a link-set changes goes through the launcher from the start; what
 * each link-set leaves must be valid (reorder= with a delay=), in file
 * order.
 */
static void check_link_sets(struct parser *p)
{
	struct topo *t = p->t;
	struct fault now[TOPO_MAX_WIRES];
	const char *why;
	char err[160];
	int i, w;

	for (w = 0; w < t->nwires; w++)
		now[w] = t->wires[w].fault;
	for (i = 0; i < t->ntests; i++) {
		const struct topo_test *tt = &t->tests[i];

		if (tt->step != TOPO_LINK_SET || tt->node < 0)
			continue;
		w = t->nodes[tt->node].ports[tt->port].wire;
		t->wires[w].relayed = 1;
		if (fault_set(&now[w], tt->command, err, sizeof(err)))
			continue;	/* reported when it was read */
		why = fault_check(&now[w]);
		if (why)
			error_at(p, tt->line, "%s", why);
	}
}

/* Pass two: node references, and each interface on one wire only. */
static void resolve(struct parser *p)
{
	struct topo *t = p->t;
	int w, m, i, node;

	for (w = 0; w < t->nwires; w++) {
		struct topo_wire *wr = &t->wires[w];

		for (m = 0; m < wr->nmembers; m++) {
			struct topo_endpoint *ep = &wr->members[m];
			struct topo_node *n;

			node = topo_find_node(t, p->ep_node[w][m]);
			ep->node = node;
			if (node < 0) {
				error_at(p, wr->line, "unknown node '%s'", p->ep_node[w][m]);
				continue;
			}
			n = &t->nodes[node];
			for (i = 0; i < n->nports; i++)
				if (!strcmp(n->ports[i].ifname, ep->ifname))
					break;
			if (i < n->nports) {
				error_at(p, wr->line, "%s:%s is already used on line %d",
					 n->name, ep->ifname, t->wires[n->ports[i].wire].line);
				continue;
			}
			if (n->nports == TOPO_MAX_PORTS) {
				error_at(p, wr->line, "node '%s' has more than %d interfaces",
					 n->name, TOPO_MAX_PORTS);
				continue;
			}
			snprintf(n->ports[n->nports].ifname, TOPO_NAME_MAX, "%s", ep->ifname);
			n->ports[n->nports].wire = w;
			n->ports[n->nports].member = m;
			n->nports++;
		}
	}
	for (i = 0; i < t->ntests; i++) {
		t->tests[i].node = topo_find_node(t, p->test_node[i]);
		if (t->tests[i].node < 0)
			error_at(p, t->tests[i].line, "unknown node '%s'", p->test_node[i]);
		else if (t->tests[i].step != TOPO_TEST)
			resolve_step(p, &t->tests[i], p->step_if[i]);
	}
	check_link_sets(p);
}

int topo_arch_known(const char *arches, const char *name)
{
	size_t len = strlen(name);
	const char *p = arches;

	if (strchr(name, ' '))
		return 0;
	while (len && (p = strstr(p, name))) {
		if ((p == arches || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return 1;
		p += len;
	}
	return 0;
}

int topo_parse(struct topo *t, const char *path, const char *default_arch,
	       const char *arches, FILE *err)
{
	struct stat st;
	FILE *f = NULL;
	int errors, fd;

	/* O_NONBLOCK: a FIFO must be refused, not waited on */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		memset(t, 0, sizeof(*t));
		t->path = path;
		fprintf(err, "%s: not a regular file\n", path);
		return 1;
	}
	if (fd >= 0) {
		fcntl(fd, F_SETFL, 0);
		f = fdopen(fd, "r");
	}
	if (!f) {
		if (fd >= 0)
			close(fd);
		memset(t, 0, sizeof(*t));
		t->path = path;
		fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	errors = topo_parse_stream(t, f, path, default_arch, arches, err);
	fclose(f);
	return errors;
}

/* A wire's mtu= becomes a setup line of its own, before the node's. */
static void add_mtu_setup(struct topo *t)
{
	struct topo_setup *s;
	int n, i, k, extra;

	for (n = 0; n < t->nnodes; n++) {
		struct topo_node *node = &t->nodes[n];

		for (i = 0, extra = 0; i < node->nports; i++)
			extra += t->wires[node->ports[i].wire].mtu > 0;
		if (!extra)
			continue;
		s = calloc(node->nsetup + extra, sizeof(*s));
		if (!s) {
			perror("lab: calloc");
			exit(2);
		}
		for (i = 0, k = 0; i < node->nports; i++) {
			const struct topo_wire *w = &t->wires[node->ports[i].wire];

			if (w->mtu <= 0)
				continue;
			if (asprintf(&s[k].command, "ip link set dev %s mtu %d",
				     node->ports[i].ifname, w->mtu) < 0) {
				perror("lab: asprintf");
				exit(2);
			}
			s[k].timeout_s = DEFAULT_SETUP_TIMEOUT_S;
			s[k++].line = w->line;
		}
		if (node->nsetup)
			memcpy(s + k, node->setup, node->nsetup * sizeof(*s));
		free(node->setup);
		node->setup = s;
		node->nsetup += extra;
	}
}

int topo_parse_stream(struct topo *t, FILE *f, const char *path,
		      const char *default_arch, const char *arches, FILE *err)
{
	struct parser *p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int i, errors;

	memset(t, 0, sizeof(*t));
	t->path = path;
	p = calloc(1, sizeof(*p));
	if (!p) {
		perror("lab: calloc");
		exit(2);
	}
	p->t = t;
	p->cur_node = -1;
	p->arches = arches;
	while ((len = getline(&line, &cap, f)) >= 0) {
		p->line++;
		if (p->line == 1 && len >= 2 && ((unsigned char)line[0] == 0xff ||
						 (unsigned char)line[0] == 0xfe) &&
		    (unsigned char)line[0] + (unsigned char)line[1] == 0xff + 0xfe) {
			error_at(p, 1, "the file is UTF-16: save it as UTF-8");
			break;
		}
		if (p->line == 1 && !strncmp(line, "\xef\xbb\xbf", 3)) {
			error_at(p, 1, "the file starts with a UTF-8 byte order mark: save it without");
			memmove(line, line + 3, len - 2);
			len -= 3;
		}
		if ((ssize_t)strlen(line) != len) {
			error_at(p, p->line, "NUL byte in the line");
			continue;
		}
		parse_line(p, line);
	}
	if (ferror(f))
		error_at(p, p->line ? p->line : 1, "read error: %s", strerror(errno));
	free(line);

	resolve(p);
	if (!p->errors)
		add_mtu_setup(t);
	if (t->nnodes == 0)
		error_at(p, p->line ? p->line : 1, "no node defined");
	for (i = 0; i < t->nnodes; i++)
		if (!t->nodes[i].arch[0])
			snprintf(t->nodes[i].arch, sizeof(t->nodes[i].arch), "%s",
				 default_arch);
	errors = p->errors;
	if (p->kept)
		qsort(p->errs, p->kept, sizeof(*p->errs), by_line);
	for (i = 0; i < p->kept; i++) {
		fprintf(err, "%s:%d: %s\n", path, p->errs[i].line,
			p->errs[i].msg ? p->errs[i].msg : "(out of memory)");
		free(p->errs[i].msg);
	}
	if (errors > p->kept)
		fprintf(err, "%s: %d more errors not shown\n", path, errors - p->kept);
	free(p->errs);
	free(p);
	return errors;
}

void topo_free(struct topo *t)
{
	int i, j;


	for (i = 0; i < t->nnodes; i++) {
		for (j = 0; j < t->nodes[i].nsetup; j++)
			free(t->nodes[i].setup[j].command);
		free(t->nodes[i].setup);
	}
	for (i = 0; i < t->ntests; i++) {
		free(t->tests[i].description);
		free(t->tests[i].command);
	}
}

int topo_one_guest(struct topo *t, const char *arch, int mem_mib, int cpus,
		   const char *images)
{
	struct topo_node *n = &t->nodes[0];
	struct topo_wire *w = &t->wires[0];
	int i;

	memset(t, 0, sizeof(*t));
	t->path = "(lab boot)";
	t->nnodes = 1;
	t->nwires = 1;
	snprintf(n->name, sizeof(n->name), "guest");
	snprintf(n->arch, sizeof(n->arch), "%s", arch);
	n->mem_mib = mem_mib ?: DEFAULT_MEM_MIB;
	n->cpus = cpus ?: 1;
	n->nports = 2;
	snprintf(w->name, sizeof(w->name), "guest:eth1--guest:eth2");
	w->nmembers = 2;
	for (i = 0; i < 2; i++) {
		snprintf(n->ports[i].ifname, sizeof(n->ports[i].ifname), "eth%d", i + 1);
		n->ports[i].member = i;
		w->members[i].node = 0;
		snprintf(w->members[i].ifname, sizeof(w->members[i].ifname), "eth%d", i + 1);
	}
	return images ? add_images(NULL, n, images) : 0;
}

const char *topo_step_name(enum topo_step step)
{
	switch (step) {
	case TOPO_LINK_DOWN:
		return "link-down";
	case TOPO_LINK_UP:
		return "link-up";
	case TOPO_LINK_SET:
		return "link-set";
	default:
		return "test";
	}
}

int topo_ntests(const struct topo *t)
{
	int i, n = 0;

	for (i = 0; i < t->ntests; i++)
		n += t->tests[i].step == TOPO_TEST;
	return n;
}

int topo_parse_step(const struct topo *t, const char *line, struct topo_test *step,
		    FILE *err)
{
	char node[TOPO_NAME_MAX], ifname[TOPO_NAME_MAX], *copy = xstrdup(line), *rest = copy;
	struct parser p = { .t = (struct topo *)t, .line = 1, .cur_node = -1 };
	const char *kw = next_word(&rest);

	memset(step, 0, sizeof(*step));
	if (step_named(kw) == TOPO_TEST)
		error_at(&p, 1, "expected link-down, link-up or link-set");
	else if (!read_step(&p, kw, rest, step, node, ifname)) {
		step->node = topo_find_node(t, node);
		if (step->node < 0)
			error_at(&p, 1, "unknown node '%s'", node);
		else
			resolve_step(&p, step, ifname);
	}
	free(copy);
	if (p.errors) {
		fprintf(err, "lab: %s\n", p.errs[0].msg ? p.errs[0].msg : "out of memory");
		for (int i = 0; i < p.errors; i++)
			free(p.errs[i].msg);
		free(p.errs);
		free(step->command);
		step->command = NULL;
		return -1;
	}
	return 0;
}
