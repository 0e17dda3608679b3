// SPDX-License-Identifier: GPL-2.0
/*
 * l3ns: error messages, one line each, prefixed with the program name.  In
 * a file of their own so that every command file depends on this one and
 * none on main.c.
 */
#include <stdio.h>
#include <string.h>

#include "l3ns.h"

int l3ns_error(const char *what, int err)
{
	fprintf(stderr, "l3ns: %s: %s\n", what, strerror(err));
	return 1;
}

int l3ns_fail(const char *what, const char *reason)
{
	fprintf(stderr, "l3ns: %s: %s\n", what, reason);
	return 1;
}
