// SPDX-License-Identifier: GPL-2.0
/*
 * l3ns: /run/l3ns as a mount: shared in the caller's mount namespace, a
 * read-only slave of it in the mount namespace of each `l3ns exec`.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "l3ns.h"

/* The kernel's answer to "is PATH the root of a mount?" (Linux 5.8). */
static bool is_mount_root(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_NO_AUTOMOUNT, 0, &stx) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return false;
	return stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
}

static bool is_empty_dir(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!dir)
		return false;
	while (empty && (de = readdir(dir)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(dir);
	return empty;
}

/*
 * Every `l3ns exec` mount namespace starts with a copy of each pin, and a
 * copy keeps its namespace alive: after `l3ns del B`, B's addresses would
 * not go back to the parent while any command run in A lives.  So, as
 * `ip netns add` does with /run/netns, /run/l3ns is a shared mount, and the
 * exec namespaces, its slaves, lose a pin when it goes here.
 * A directory that already holds pins is left as it is: a mount on it would
 * hide them from `l3ns del`, which could then never let them go.
 */
int l3ns_dir_share(void)
{
	int dir, err = 0;

	/*
	 * Two first-time `l3ns add` at once would each bind the directory
	 * onto itself, and the upper mount would hide the pins made in the
	 * lower one: the check and the bind happen under a lock on it.
	 */
	dir = open(L3NS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || flock(dir, LOCK_EX))
		err = l3ns_error(L3NS_DIR, errno);
	else if (!is_mount_root(L3NS_DIR) && is_empty_dir(L3NS_DIR) &&
		 mount(L3NS_DIR, L3NS_DIR, NULL, MS_BIND, NULL))
		err = l3ns_error(L3NS_DIR, errno);
	else if (is_mount_root(L3NS_DIR) &&
		 mount(NULL, L3NS_DIR, NULL, MS_SHARED, NULL))
		err = l3ns_error(L3NS_DIR, errno);
	if (dir >= 0)
		close(dir);
	return err;
}

/*
 * A remount replaces every per-mount flag, so the ones the mount has go
 * along with MS_RDONLY: without them a nosuid or nodev /run would lose
 * those (and a locked flag would make the remount fail with EPERM).
 */
static unsigned long mount_flags(const char *path)
{
	static const struct { unsigned long st, ms; } map[] = {
		{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC }, { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
	};
	unsigned long flags = 0;
	struct statvfs sv;
	size_t i;

	if (statvfs(path, &sv))
		return 0;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sv.f_flag & map[i].st)
			flags |= map[i].ms;
	return flags;
}

/*
 * Root inside an L3 namespace keeps CAP_SYS_ADMIN.  In the caller's mount
 * namespace it could unmount a pin or mount another namespace file over
 * one, and NAME would then mean that namespace to the parent's next l3ns
 * command.  So the command gets a mount namespace of its own, as with
 * `ip netns exec`: a slave, so that nothing mounted or unmounted in it
 * propagates back while pins removed outside go here too (see
 * l3ns_dir_share()), and with /run/l3ns read-only, so that no pin changes
 * by accident (root in there could remount it; what it does stays there).
 */
int l3ns_dir_confine(void)
{
	if (unshare(CLONE_NEWNS))
		return l3ns_error("new mount namespace", errno);
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return l3ns_error("new mount namespace", errno);
	/*
	 * Only a mount can be read-only on its own.  The bind is recursive:
	 * the pins are mounts below the directory and a plain bind would
	 * leave only the empty files they are mounted on.
	 */
	if (!is_mount_root(L3NS_DIR) &&
	    mount(L3NS_DIR, L3NS_DIR, NULL, MS_BIND | MS_REC, NULL))
		return l3ns_error(L3NS_DIR, errno);
	if (mount(NULL, L3NS_DIR, NULL,
		  MS_BIND | MS_REMOUNT | MS_RDONLY | mount_flags(L3NS_DIR), NULL))
		return l3ns_error(L3NS_DIR, errno);
	return 0;
}
