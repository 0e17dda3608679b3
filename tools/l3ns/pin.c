// SPDX-License-Identifier: GPL-2.0
/* l3ns: creating, pinning, opening and naming L3 namespaces. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "l3ns.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

bool l3ns_name_valid(const char *name)
{
	size_t i, len = strlen(name);

	if (len == 0 || len > 64 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '-' && c != '_' && c != '.')
			return false;
	}
	return true;
}

static void pin_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", L3NS_DIR, name);
}

int l3ns_create(const char *name, unsigned int flags)
{
	char path[PATH_MAX], proc[64];
	int netfd, fd, pin, err;

	/* The namespace first: if the kernel refuses, nothing was changed. */
	netfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (netfd < 0)
		return l3ns_error("/proc/self/ns/net", errno);
	fd = ioctl(netfd, NS_NEW_L3NET, (unsigned long)flags);
	err = errno;
	close(netfd);
	if (fd < 0) {
		if (err == ENOTTY)
			return l3ns_fail(name, "this kernel has no L3 network namespaces (CONFIG_L3_NET_NS)");
		return l3ns_error(name, err);
	}

	/* Until it is pinned, closing fd destroys it again. */
	if (mkdir(L3NS_DIR, 0755) && errno != EEXIST) {
		err = l3ns_error(L3NS_DIR, errno);
		goto out_close;
	}
	err = l3ns_dir_share();
	if (err)
		goto out_close;
	pin_path(name, path, sizeof(path));
	pin = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (pin < 0) {
		err = l3ns_error(name, errno);
		goto out_close;
	}
	close(pin);

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	err = 0;
	if (mount(proc, path, NULL, MS_BIND, NULL)) {
		err = l3ns_error(path, errno);
		unlink(path);
	}
out_close:
	close(fd);
	return err;
}

int l3ns_delete(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	/* Check first: nothing changes when NAME is not an L3 namespace. */
	err = l3ns_open(name, &fd, NULL);
	if (err)
		return err;
	close(fd);

	pin_path(name, path, sizeof(path));
	if (umount2(path, MNT_DETACH))
		return l3ns_error(path, errno);
	if (unlink(path))
		return l3ns_error(path, errno);
	return 0;
}

/* An L3 namespace file: on nsfs, of the one type that is no CLONE_NEW* flag. */
static bool is_l3ns_file(int fd)
{
	struct statfs fs;

	return !fstatfs(fd, &fs) && fs.f_type == NSFS_MAGIC &&
	       ioctl(fd, NS_GET_NSTYPE) == 0;
}

int l3ns_open(const char *name, int *fd, ino_t *id)
{
	char path[PATH_MAX];
	struct stat st;

	pin_path(name, path, sizeof(path));
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return errno == ENOENT ? l3ns_fail(name, "no such L3 namespace")
				       : l3ns_error(name, errno);
	if (!is_l3ns_file(*fd) || fstat(*fd, &st)) {
		close(*fd);
		return l3ns_fail(name, "not an L3 namespace");
	}
	if (id)
		*id = st.st_ino;
	return 0;
}

/* The pinned name of namespace inode @id, or "l3net:[ID]" when unpinned. */
const char *l3ns_name_of(ino_t id, char *buf, size_t len)
{
	struct dirent *de;
	DIR *dir = opendir(L3NS_DIR);

	snprintf(buf, len, "l3net:[%lu]", (unsigned long)id);
	if (!dir)
		return buf;
	while ((de = readdir(dir))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (!fstatat(dirfd(dir), de->d_name, &st, 0) && st.st_ino == id &&
		    strlen(de->d_name) < len) {
			strcpy(buf, de->d_name);
			break;
		}
	}
	closedir(dir);
	return buf;
}

int l3ns_identify(const char *pid)
{
	char path[PATH_MAX], name[80];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/l3net", pid);
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return l3ns_error(path, errno);
		/* No such process, or one that is not confined. */
		snprintf(path, sizeof(path), "/proc/%s", pid);
		if (access(path, F_OK))
			return l3ns_fail(pid, "no such process");
		return 0;
	}
	printf("%s\n", l3ns_name_of(st.st_ino, name, sizeof(name)));
	return 0;
}
