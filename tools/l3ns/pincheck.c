// SPDX-License-Identifier: GPL-2.0
/* l3ns: is /run/l3ns/NAME still the pin that `l3ns add` made? */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "l3ns.h"

/* A mount on the pin's path, from /proc/self/mountinfo. */
struct pin_mount {
	int id, parent;
	char root[64];
};

/*
 * The mounts whose mount point is @path; *count entries, malloc'ed.
 * mountinfo escapes blanks and backslashes in paths, which neither
 * L3NS_DIR nor a valid NAME contains, so comparing the raw field is exact.
 * A root too long for pin_mount.root cannot be "l3net:[INODE]": cut short,
 * it still compares unequal.
 */
static int mounts_at(const char *path, struct pin_mount **list, size_t *count)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 0, len = 0;
	char *line = NULL;
	int err = 0;

	*list = NULL;
	*count = 0;
	if (!f)
		return -errno;
	while (getline(&line, &len, f) > 0) {
		char *save, *id, *parent, *root, *point;

		id = strtok_r(line, " ", &save);
		parent = strtok_r(NULL, " ", &save);
		strtok_r(NULL, " ", &save);	/* major:minor */
		root = strtok_r(NULL, " ", &save);
		point = strtok_r(NULL, " ", &save);
		if (!id || !parent || !root || !point || strcmp(point, path))
			continue;
		if (*count == cap) {
			struct pin_mount *grown;

			cap = cap ? 2 * cap : 4;
			grown = realloc(*list, cap * sizeof(**list));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			*list = grown;
		}
		(*list)[*count].id = atoi(id);
		(*list)[*count].parent = atoi(parent);
		snprintf((*list)[*count].root, sizeof((*list)[*count].root), "%s", root);
		(*count)++;
	}
	free(line);
	fclose(f);
	return err;
}

static const struct pin_mount *find_mount(const struct pin_mount *list,
					  size_t count, int id)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (list[i].id == id)
			return &list[i];
	return NULL;
}

/*
 * `l3ns add` makes exactly one mount on /run/l3ns/NAME, a bind of the new
 * namespace's file.  Anyone with CAP_SYS_ADMIN in this mount namespace can
 * stack another namespace file on top (mount --bind), and NAME then means
 * that namespace: addresses meant for NAME would go to it.  So the mount
 * that @fd was opened on must be the only one in the stack at that path,
 * and carry the namespace @id that fstat() saw.
 *
 * The stack is followed down from the opened mount through its parents,
 * not counted over all of mountinfo: when /run/l3ns itself is mounted over
 * (as l3ns exec does when it binds /run/l3ns onto itself, or as shared
 * propagation does to the mount below), the pin is listed once more, at
 * the same path but on the covered mount, in no stack with the one the
 * path leads to.
 */
int l3ns_pin_check(const char *name, int fd, ino_t id)
{
	/* a valid NAME has at most 64 characters */
	char path[sizeof(L3NS_DIR) + 65], want[64], reason[384];
	const struct pin_mount *m, *top;
	struct pin_mount *list;
	struct statx stx;
	size_t count;
	int err, depth = 0;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx))
		return l3ns_error(name, errno);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return l3ns_fail(name, "cannot check the pin (no mount IDs before Linux 5.8)");

	snprintf(path, sizeof(path), "%s/%s", L3NS_DIR, name);
	err = mounts_at(path, &list, &count);
	if (err) {
		free(list);
		return l3ns_error("/proc/self/mountinfo", -err);
	}
	top = find_mount(list, count, (int)stx.stx_mnt_id);
	/* bounded by count: a parent loop cannot make it spin */
	for (m = top; m && depth <= (int)count; m = find_mount(list, count, m->parent))
		depth++;

	snprintf(want, sizeof(want), "l3net:[%lu]", (unsigned long)id);
	err = 0;
	if (depth != 1) {
		snprintf(reason, sizeof(reason), "pin was tampered with (%d mounts at %s)",
			 depth, path);
		err = l3ns_fail(name, reason);
	} else if (strcmp(top->root, want)) {
		snprintf(reason, sizeof(reason), "pin was tampered with (%s at %s, not %s)",
			 top->root, path, want);
		err = l3ns_fail(name, reason);
	}
	free(list);
	return err;
}
