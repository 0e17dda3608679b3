// SPDX-License-Identifier: GPL-2.0
/*
 * lab-init: PID 1 of every netns-lab guest, /init on the read-only root
 * image (the kernel mounted it: root=/dev/vda).  Mounts what the tests
 * need and the payload images attached, names the NICs, brings them up,
 * keeps a shell on the console, runs the payload the kernel command line
 * names (lab.run=NAME runs /lab/run/NAME; the launcher's guests run
 * agent, built in: agent.c beside this file) with its output on the
 * results port (/dev/hvc0, a virtio console the host reads) and powers
 * off: with -no-reboot, QEMU exits when the guest reboots, on both
 * arches, with no ACPI needed.
 *
 * C, not a shell script: under TCG every fork and exec of a shell, cat or
 * ip costs the boot some 10-40 ms, and a guest reaches its first test
 * line in about the time the kernel alone takes only if init costs
 * nearly nothing.  Every step is a system call.
 *
 * Kernel command line:
 *   lab.run=NAME       the payload, /lab/run/NAME
 *   lab.node=NAME      the hostname
 *   lab.if.IF=MAC      the NIC whose MAC is MAC becomes IF (QEMU's device
 *                      order is not a promise, the MAC is)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define MAX_RENAMES 16

struct rename {
	char ifname[IFNAMSIZ];
	unsigned char mac[6];
};

struct boot_args {
	char run[64];
	char node[64];
	struct rename renames[MAX_RENAMES];
	int nrenames;
};

static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("init: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void mount_or_say(const char *source, const char *target, const char *type,
			 unsigned long flags, const char *data)
{
	if (mount(source, target, type, flags, data))
		say("mount %s on %s: %s", type, target, strerror(errno));
}

/* Whether something is mounted on PATH: another device than its parent's. */
static int mounted(const char *path)
{
	struct stat here, root;

	return !stat(path, &here) && !stat("/", &root) && here.st_dev != root.st_dev;
}

static void mount_basics(void)
{
	mount_or_say("proc", "/proc", "proc", 0, NULL);
	mount_or_say("sysfs", "/sys", "sysfs", 0, NULL);
	/* CONFIG_DEVTMPFS_MOUNT mounted it with the root */
	if (!mounted("/dev"))
		mount_or_say("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/dev/pts", 0755);
	mkdir("/dev/shm", 0);
	chmod("/dev/shm", 01777);	/* not through the umask: shm_open for all */
	mount_or_say("devpts", "/dev/pts", "devpts", 0, NULL);
	/* What udev would add: bash's <(...) opens /dev/fd/N. */
	if (symlink("/proc/self/fd", "/dev/fd") ||
	    symlink("/proc/self/fd/0", "/dev/stdin") ||
	    symlink("/proc/self/fd/1", "/dev/stdout") ||
	    symlink("/proc/self/fd/2", "/dev/stderr"))
		say("symlinks in /dev: %s", strerror(errno));
	mount_or_say("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mount_or_say("tmpfs", "/tmp", "tmpfs", 0, NULL);
}

/*
 * Whether RCU grace periods are expedited (/sys/kernel/rcu_expedited):
 * SET the new value, and the old one into OLD if given (NUL-terminated,
 * or "").
 * Naming a NIC waits for a grace period, and bringing NICs up for some:
 * under TCG the two steps took 50-80 ms of init's 100 on arm64, 25-30
 * expedited.  Only for init's own steps: the tests run with the kernel's
 * usual grace periods.
 */
static void rcu_expedite(const char *set, char old[4])
{
	ssize_t len;
	int fd;

	if (old)
		old[0] = '\0';
	fd = open("/sys/kernel/rcu_expedited", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (old) {
		len = read(fd, old, 3);
		old[len > 0 ? len : 0] = '\0';
	}
	if (pwrite(fd, set, strlen(set), 0) < 0)
		say("rcu_expedited: %s", strerror(errno));
	close(fd);
}

/* "52:54:00:6c:00:01": six fields of exactly two hex digits. */
static int parse_mac(const char *s, unsigned char mac[6])
{
	unsigned int byte;
	int i;

	for (i = 0; i < 6; i++, s += 3) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    s[2] != (i < 5 ? ':' : '\0'))
			return -1;
		sscanf(s, "%2x", &byte);
		mac[i] = byte;
	}
	return 0;
}

static void parse_cmdline(struct boot_args *a)
{
	char buf[4096], *word, *save, *eq;
	struct rename *r;
	ssize_t len;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (len < 0) {
		say("/proc/cmdline: %s", strerror(errno));
		return;
	}
	buf[len] = '\0';
	for (word = strtok_r(buf, " \n", &save); word; word = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(word, "lab.run=", 8)) {
			snprintf(a->run, sizeof(a->run), "%s", word + 8);
		} else if (!strncmp(word, "lab.node=", 9)) {
			snprintf(a->node, sizeof(a->node), "%s", word + 9);
		} else if (!strncmp(word, "lab.if.", 7) && (eq = strchr(word, '='))) {
			if (a->nrenames == MAX_RENAMES) {
				say("more than %d lab.if. NICs; %s ignored", MAX_RENAMES, word);
				continue;
			}
			r = &a->renames[a->nrenames];
			*eq = '\0';
			if (strlen(word + 7) >= IFNAMSIZ || parse_mac(eq + 1, r->mac)) {
				say("bad lab.if.%s=%s", word + 7, eq + 1);
				continue;
			}
			snprintf(r->ifname, sizeof(r->ifname), "%s", word + 7);
			a->nrenames++;
		}
	}
}

/* The name of the NIC whose MAC is MAC, in NAME: 0, or -1. */
static int nic_by_mac(int sock, const unsigned char mac[6], char name[IFNAMSIZ])
{
	struct if_nameindex *all, *i;
	struct ifreq ifr;
	int found = -1;

	all = if_nameindex();
	for (i = all; i && i->if_index && found; i++) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
		if (!ioctl(sock, SIOCGIFHWADDR, &ifr) &&
		    ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER &&
		    !memcmp(ifr.ifr_hwaddr.sa_data, mac, 6)) {
			snprintf(name, IFNAMSIZ, "%s", i->if_name);
			found = 0;
		}
	}
	if (all)
		if_freenameindex(all);
	return found;
}

static int rename_nic(int sock, const char *from, const char *to)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", from);
	snprintf(ifr.ifr_newname, sizeof(ifr.ifr_newname), "%s", to);
	if (!ioctl(sock, SIOCSIFNAME, &ifr))
		return 0;
	say("rename %s to %s: %s", from, to, strerror(errno));
	return -1;
}

/*
 * Whether waiting NIC SELF is on a cycle of waiting NICs: its wanted name
 * held by one that wants a name held by one ... that wants SELF's name.
 * Names are unique, so following the holders is a path or a cycle.
 */
static int on_cycle(const struct boot_args *a, const int *pending, char cur[][IFNAMSIZ],
		    int self)
{
	int j = self, h, steps;

	for (steps = 0; steps < a->nrenames; steps++) {
		for (h = 0; h < a->nrenames; h++)
			if (pending[h] && !strcmp(cur[h], a->renames[j].ifname))
				break;
		if (h == a->nrenames)
			return 0;
		if (h == self)
			return 1;
		j = h;
	}
	return 0;
}

/*
 * Each NIC to its lab.if. name, straight when the name is free, in an
 * order that frees names before they are wanted (eth1 becomes eth2 before
 * eth0 becomes eth1); a free temporary name only to break a cycle (eth0
 * and eth1 swap).  A rename costs the guest ~12 ms under TCG: the usual
 * two NICs take two.  A NIC whose wanted name a NIC outside the list
 * holds is reported and keeps its own name.
 */
static void name_nics(int sock, const struct boot_args *a)
{
	char cur[MAX_RENAMES][IFNAMSIZ], orig[MAX_RENAMES][IFNAMSIZ], tmp[IFNAMSIZ];
	int i, n = a->nrenames, pending[MAX_RENAMES], aside[MAX_RENAMES] = { 0 };
	int left = 0, moved;
	unsigned int t = 0;

	for (i = 0; i < n; i++) {
		pending[i] = 0;
		if (nic_by_mac(sock, a->renames[i].mac, cur[i])) {
			say("no NIC has the MAC of lab.if.%s", a->renames[i].ifname);
			continue;
		}
		memcpy(orig[i], cur[i], IFNAMSIZ);
		pending[i] = strcmp(cur[i], a->renames[i].ifname) != 0;
		left += pending[i];
	}
	while (left) {
		moved = 0;
		for (i = 0; i < n; i++) {
			if (!pending[i] || if_nametoindex(a->renames[i].ifname))
				continue;
			pending[i] = 0;
			left--;
			moved = 1;
			if (!rename_nic(sock, cur[i], a->renames[i].ifname))
				continue;
			if (aside[i] && !rename_nic(sock, cur[i], orig[i]))
				memcpy(cur[i], orig[i], IFNAMSIZ);
			say("lab.if.%s: this NIC stays %s", a->renames[i].ifname, cur[i]);
		}
		if (moved)
			continue;
		/* A cycle (eth0 and eth1 swap): one of its NICs steps aside, once. */
		for (i = 0; i < n; i++)
			if (pending[i] && !aside[i] && on_cycle(a, pending, cur, i))
				break;
		if (i == n) {
			for (i = 0; i < n; i++) {
				if (!pending[i])
					continue;
				if (aside[i] && !rename_nic(sock, cur[i], orig[i]))
					memcpy(cur[i], orig[i], IFNAMSIZ);
				say("lab.if.%s: another NIC has the name; this one stays %s",
				    a->renames[i].ifname, cur[i]);
			}
			return;
		}
		aside[i] = 1;
		do
			snprintf(tmp, sizeof(tmp), "labtmp%u", t++ % 1000);
		while (if_nametoindex(tmp) && t < 1000);
		if (rename_nic(sock, cur[i], tmp)) {
			pending[i] = 0;
			left--;
		} else {
			memcpy(cur[i], tmp, IFNAMSIZ);
		}
	}
}

/* Every interface up, lo too: a topology's setup lines find them so. */
static void nics_up(int sock)
{
	struct if_nameindex *all, *i;
	struct ifreq ifr;

	all = if_nameindex();
	for (i = all; i && i->if_index; i++) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
		if (ioctl(sock, SIOCGIFFLAGS, &ifr))
			continue;
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(sock, SIOCSIFFLAGS, &ifr))
			say("%s up: %s", i->if_name, strerror(errno));
	}
	if (all)
		if_freenameindex(all);
}

/*
 * Payload images: each virtio disk's serial is its image's name, mounted
 * read-only on /lab/NAME (the root image has the directory).
 */
static void mount_images(void)
{
	char path[300], image[64], dev[300];
	struct dirent *d;
	ssize_t len;
	DIR *dir;
	int fd;

	dir = opendir("/sys/block");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "vd", 2))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		len = fd < 0 ? -1 : read(fd, image, sizeof(image) - 1);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;
		image[len] = '\0';
		image[strcspn(image, "\n")] = '\0';
		if (!strcmp(image, "userland") || strchr(image, '/') || image[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/lab/%s", image);
		snprintf(dev, sizeof(dev), "/dev/%s", d->d_name);
		if (mount(dev, path, "erofs", MS_RDONLY, NULL))
			say("mount image '%s' (%s) on %s: %s", image, dev, path, strerror(errno));
	}
	closedir(dir);
}

/*
 * A login shell on the console for whoever attaches to it (lab shell:
 * console NODE), a new one when it exits.  On the console's real tty
 * (cttyhack's way: /dev/console cannot be a controlling terminal), and at
 * nice 19: it must not slow the payload down on a one-CPU guest.
 */
static void console_shells(void)
{
	char tty[64] = "console", path[80];
	ssize_t len;
	pid_t pid;
	int fd;

	if (fork())
		return;
	setpriority(PRIO_PROCESS, 0, 19);
	fd = open("/sys/class/tty/console/active", O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, tty, sizeof(tty) - 1);
	if (fd >= 0)
		close(fd);
	if (len > 0) {
		tty[len] = '\0';
		tty[strcspn(tty, "\n")] = '\0';
	}
	/* the last one listed is /dev/console's (as busybox's cttyhack reads it) */
	snprintf(path, sizeof(path), "/dev/%s", strrchr(tty, ' ') ? strrchr(tty, ' ') + 1 : tty);
	for (;;) {
		pid = fork();
		if (!pid) {
			setsid();
			fd = open(path, O_RDWR);
			if (fd < 0)
				_exit(1);
			ioctl(fd, TIOCSCTTY, 0);
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
			execl("/bin/sh", "-sh", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		sleep(1);
	}
}

/*
 * Runs the payload, output to the results port, and reaps orphans till it
 * ends: "agent" is built in (agent.c), any other NAME is /lab/run/NAME.
 */
static void run_payload(const char *run)
{
	char path[128];
	const char *out = "/dev/hvc0";
	int builtin = !strcmp(run, "agent");
	struct stat st;
	pid_t pid, w;
	int fd;

	if (stat(out, &st) || !S_ISCHR(st.st_mode))
		out = "/dev/console";
	snprintf(path, sizeof(path), "/lab/run/%s", run);
	if (!builtin && (!run[0] || strchr(run, '/') || access(path, X_OK))) {
		fd = open(out, O_WRONLY | O_CLOEXEC);
		dprintf(fd >= 0 ? fd : 2, "init: no payload '%s' in /lab/run\n", run);
		if (fd >= 0)
			close(fd);
		return;
	}
	pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		/* 0, 1 and 2 only: the agent never execs, O_CLOEXEC is not enough */
		fd = open(out, O_WRONLY);
		if (fd >= 0 && (dup2(fd, 1), dup2(fd, 2), fd > 2))
			close(fd);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && (dup2(fd, 0), fd > 2))
			close(fd);
		if (builtin)
			_exit(agent_main());
		execl(path, path, (char *)NULL);
		say("%s: %s", path, strerror(errno));
		_exit(127);
	}
	do
		w = wait(NULL);
	while (w != pid && !(w < 0 && errno == ECHILD));
}

int main(void)
{
	struct boot_args args = { 0 };
	char rcu_was[4];
	int sock;

	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	setenv("HOME", "/root", 1);
	mount_basics();
	rcu_expedite("1", rcu_was);
	parse_cmdline(&args);
	if (args.node[0] && sethostname(args.node, strlen(args.node)))
		say("hostname %s: %s", args.node, strerror(errno));
	mount_images();
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		say("socket: %s", strerror(errno));
	} else {
		name_nics(sock, &args);
		nics_up(sock);
		close(sock);
	}
	if (rcu_was[0])
		rcu_expedite(rcu_was, NULL);
	console_shells();
	run_payload(args.run);

	/* Whatever the payload left running must not delay the exit. */
	sync();
	reboot(RB_AUTOBOOT);
	/* Should reboot fail, returning from PID 1 panics; panic=-1 ends QEMU. */
	return 1;
}
