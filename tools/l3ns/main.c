// SPDX-License-Identifier: GPL-2.0
/* l3ns: the command line (see usage()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l3ns.h"

static const char usage_text[] =
"usage: l3ns add NAME [loopback isolated|shared] [raw deny|allow]\n"
"       l3ns del NAME\n"
"       l3ns list\n"
"       l3ns addr add NAME ADDR/PLEN dev DEV\n"
"       l3ns addr del NAME ADDR/PLEN dev DEV\n"
"       l3ns addr show [NAME]\n"
"       l3ns exec NAME CMD [ARG...]\n"
"       l3ns identify [PID]\n"
"\n"
"An L3 namespace shares its parent's devices and routes, uses only the IPv4\n"
"and IPv6 addresses the parent assigns it (l3ns addr add, which waits for\n"
"IPv6 duplicate address detection and fails on a duplicate), and has no\n"
"network admin rights.  NAME is pinned at " L3NS_DIR "/NAME.\n";

/* A usage error is one line too; the whole text comes with no arguments. */
static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "l3ns: %s (try 'l3ns help')\n", why);
	else
		fputs(usage_text, stderr);
	return 2;
}

static int need_name(const char *name)
{
	if (!name)
		return usage("missing NAME");
	if (!l3ns_name_valid(name))
		return l3ns_fail(name, "invalid name (use letters, digits, '-', '_', '.')");
	return 0;
}

static int cmd_add(int argc, char **argv)
{
	unsigned int flags = 0;
	int i, err;

	err = need_name(argv[0]);
	if (err)
		return err;
	for (i = 1; i < argc; i += 2) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(key, "loopback") && val && !strcmp(val, "isolated"))
			flags &= ~L3NET_LOOPBACK_SHARED;
		else if (!strcmp(key, "loopback") && val && !strcmp(val, "shared"))
			flags |= L3NET_LOOPBACK_SHARED;
		else if (!strcmp(key, "raw") && val && !strcmp(val, "deny"))
			flags &= ~L3NET_RAW_ALLOW;
		else if (!strcmp(key, "raw") && val && !strcmp(val, "allow"))
			flags |= L3NET_RAW_ALLOW;
		else
			return usage("add: expected 'loopback isolated|shared' or 'raw deny|allow'");
	}
	return l3ns_create(argv[0], flags);
}

/* ADDR/PLEN dev DEV, after NAME */
static int addr_args(int argc, char **argv, struct l3ns_prefix *prefix,
		     const char **dev)
{
	int err = need_name(argv[0]);

	if (err)
		return err;
	if (argc != 4 || strcmp(argv[2], "dev"))
		return usage("addr: expected NAME ADDR/PLEN dev DEV");
	if (!l3ns_parse_prefix(argv[1], prefix))
		return l3ns_fail(argv[1], "not an IPv4 or IPv6 address with prefix length (ADDR/PLEN)");
	*dev = argv[3];
	return 0;
}

static int cmd_addr(int argc, char **argv)
{
	struct l3ns_prefix prefix;
	const char *dev = NULL;
	int err;

	if (argc < 1)
		return usage("addr: expected add, del or show");
	if (!strcmp(argv[0], "show")) {
		if (argc > 2)
			return usage("addr show: too many arguments");
		if (argc == 2) {
			err = need_name(argv[1]);
			if (err)
				return err;
		}
		return l3ns_addr_show(argc == 2 ? argv[1] : NULL, false);
	}
	if (strcmp(argv[0], "add") && strcmp(argv[0], "del"))
		return usage("addr: expected add, del or show");
	err = addr_args(argc - 1, argv + 1, &prefix, &dev);
	if (err)
		return err;
	if (!strcmp(argv[0], "add"))
		return l3ns_addr_add(argv[1], &prefix, dev);
	return l3ns_addr_del(argv[1], &prefix, dev);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int err;

	if (!cmd)
		return usage(NULL);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(cmd, "add"))
		return argc < 3 ? usage("add: missing NAME") : cmd_add(argc - 2, argv + 2);
	if (!strcmp(cmd, "del")) {
		if (argc != 3)
			return usage(argc < 3 ? "del: missing NAME" : "del: too many arguments");
		err = need_name(argv[2]);
		return err ? err : l3ns_delete(argv[2]);
	}
	if (!strcmp(cmd, "list"))
		return argc > 2 ? usage("list: too many arguments") : l3ns_addr_show(NULL, true);
	if (!strcmp(cmd, "addr"))
		return cmd_addr(argc - 2, argv + 2);
	if (!strcmp(cmd, "exec")) {
		if (argc < 4)
			return usage(argc < 3 ? "exec: missing NAME" : "exec: missing CMD");
		err = need_name(argv[2]);
		return err ? err : l3ns_exec(argv[2], argv + 3);
	}
	if (!strcmp(cmd, "identify")) {
		if (argc > 3)
			return usage("identify: too many arguments");
		return l3ns_identify(argc == 3 ? argv[2] : "self");
	}
	fprintf(stderr, "l3ns: %s: unknown command (try 'l3ns help')\n", cmd);
	return 2;
}
