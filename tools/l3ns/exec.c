// SPDX-License-Identifier: GPL-2.0
/* l3ns: running a command inside an L3 namespace (l3ns exec). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "l3ns.h"

int l3ns_exec(const char *name, char **argv)
{
	int fd, err;

	err = l3ns_open(name, &fd, NULL);
	if (err)
		return err;
	/*
	 * The mount namespace first, with the caller's rights: the series
	 * refuses namespace changes from inside an L3 namespace, and which
	 * ones is the kernel's business, not something to depend on here.
	 */
	err = l3ns_dir_confine();
	if (err) {
		close(fd);
		return err;
	}
	if (setns(fd, 0)) {
		err = errno;
		close(fd);
		return l3ns_error(name, err);
	}
	close(fd);
	execvp(argv[0], argv);
	return l3ns_error(argv[0], errno);
}
