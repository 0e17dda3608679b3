// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU command lines.  Every wire is a pair (link) or a star (lan) of
 * "-netdev dgram" unix sockets in the run folder: no root, nothing on the
 * host network, no start-order race (a frame sent before its peer exists is
 * dropped, as on a cable being plugged in), no echo to the sender, and no
 * cross-talk between two labs, whose run folders differ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu.h"
#include "tsc.h"

void qemu_mac(int node, int port, char mac[18])
{
	/* 52:54:00 is QEMU's prefix; 6c is 'l' for lab. */
	snprintf(mac, 18, "52:54:00:6c:%02x:%02x", node & 0xff, port & 0xff);
}

void qemu_wire_path(const struct qemu_opts *o, int wire, int member,
		    char *buf, size_t size)
{
	snprintf(buf, size, "%s/w%d.%d.sock", o->run_dir, wire, member);
}

int qemu_wire_relayed(const struct qemu_opts *o, const struct topo_wire *w)
{
	return w->relayed || o->relay_all;
}

void qemu_hub_path(const struct qemu_opts *o, int wire, int member,
		   char *buf, size_t size)
{
	snprintf(buf, size, "%s/w%d.hub%d.sock", o->run_dir, wire, member);
}

/* PATH is readable: 0, else -1 and "lab: PATH: " MISSING, or the errno. */
static int need_file(const char *path, const char *missing, ...)
{
	va_list ap;
	int err;

	if (!access(path, R_OK))
		return 0;
	err = errno;
	fprintf(stderr, "lab: %s: ", path);
	if (err == ENOENT) {
		va_start(ap, missing);
		vfprintf(stderr, missing, ap);
		va_end(ap);
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "%s\n", strerror(err));
	}
	return -1;
}

int qemu_images(const struct qemu_opts *o, const struct arch_desc *arch,
		const struct topo_node *node, struct qemu_images *img)
{
	const char *debug = o->debug ? " DEBUG=1" : "";
	int i;

	if (o->kernel)
		snprintf(img->kernel, sizeof(img->kernel), "%s", o->kernel);
	else
		snprintf(img->kernel, sizeof(img->kernel), "%s/%s/kernel%s/%s", o->build,
			 arch->name, o->debug ? "-debug" : "",
			 o->debug ? arch->kernel_image_debug : arch->kernel_image);
	img->ndisks = 1 + node->nimages;
	for (i = 0; i < img->ndisks; i++) {
		img->disk_name[i] = i ? node->images[i - 1] : TOPO_ROOT_IMAGE;
		snprintf(img->disk[i], sizeof(img->disk[i]), "%s/%s/%s.erofs", o->build,
			 arch->name, img->disk_name[i]);
	}
	if (o->dry_run)
		return 0;
	if (o->kernel && access(img->kernel, R_OK)) {
		fprintf(stderr, "lab: %s: %s\n", img->kernel, strerror(errno));
		return -1;
	}
	if (need_file(img->kernel, "no kernel image (make ARCH=%s%s kernel)", arch->name, debug) ||
	    need_file(img->disk[0], "no guest userland (make ARCH=%s userland)", arch->name))
		return -1;
	for (i = 1; i < img->ndisks; i++)
		if (need_file(img->disk[i], "no image '%s' (make ARCH=%s userland builds the Makefile's IMAGES)",
			      img->disk_name[i], arch->name))
			return -1;
	return 0;
}

/*
 * PATH as a value inside a QEMU option list (path=..., file=...): a comma
 * ends the value unless doubled.  Malloc'ed.
 */
static char *opt_value(const char *path)
{
	char *out = malloc(2 * strlen(path) + 1), *o = out;

	if (!out) {
		perror("lab: malloc");
		exit(2);
	}
	for (; *path; path++) {
		*o++ = *path;
		if (*path == ',')
			*o++ = ',';
	}
	*o = '\0';
	return out;
}

struct argv_builder {
	char **v;
	int n, cap;
};

static void add(struct argv_builder *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (b->n + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!b->v) {
			perror("lab: realloc");
			exit(2);
		}
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		perror("lab: vasprintf");
		exit(2);
	}
	va_end(ap);
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
}

/* WORDS split at spaces and tabs, one argument each (-icount shift=0, say). */
static void add_words(struct argv_builder *b, const char *words)
{
	const char *w = words;
	size_t len;

	for (;;) {
		w += strspn(w, " \t");
		len = strcspn(w, " \t");
		if (!len)
			return;
		add(b, "%.*s", (int)len, w);
		w += len;
	}
}

/* One virtio NIC per port, on its wire's unix socket (and its pcap). */
static void add_nics(struct argv_builder *b, const struct topo *t, int n,
		     const struct qemu_opts *o)
{
	const struct topo_node *node = &t->nodes[n];
	char mac[18], local[4096], remote[4096], *lv, *rv;
	int i;

	for (i = 0; i < node->nports; i++) {
		const struct topo_port *p = &node->ports[i];
		const struct topo_wire *w = &t->wires[p->wire];

		qemu_mac(n, i, mac);
		qemu_wire_path(o, p->wire, p->member, local, sizeof(local));
		if (qemu_wire_relayed(o, w))
			qemu_hub_path(o, p->wire, p->member, remote, sizeof(remote));
		else
			qemu_wire_path(o, p->wire, !p->member, remote, sizeof(remote));
		add(b, "-netdev");
		lv = opt_value(local);
		rv = opt_value(remote);
		add(b, "dgram,id=n%d,local.type=unix,local.path=%s,remote.type=unix,remote.path=%s",
		    i, lv, rv);
		free(lv);
		free(rv);
		add(b, "-device");
		add(b, "virtio-net-pci,netdev=n%d,mac=%s", i, mac);
		if (o->capture) {
			add(b, "-object");
			rv = opt_value(o->run_dir);
			add(b, "filter-dump,id=cap%d,netdev=n%d,file=%s/%s-%s.pcap",
			    i, i, rv, node->name, p->ifname);
			free(rv);
		}
	}
}

char **qemu_argv(const struct topo *t, int n, const struct qemu_opts *o)
{
	const struct topo_node *node = &t->nodes[n];
	struct argv_builder b = {};
	struct qemu_images *img;
	char mac[18], *rd;
	char cmdline[2048];
	struct arch_desc arch;
	int i, len;

	img = malloc(sizeof(*img));
	if (!img) {
		perror("lab: malloc");
		exit(2);
	}
	if (arch_load(o->top, node->arch, &arch) || qemu_images(o, &arch, node, img)) {
		free(img);
		return NULL;
	}

	/*
	 * configs/common.cmdline and arch/ARCH.conf's, the root image (the
	 * first disk below), the agent's, the host's TSC rate if the arch
	 * wants it, the caller's.
	 */
	len = snprintf(cmdline, sizeof(cmdline),
		       "%s root=/dev/vda ro rootfstype=erofs init=/init lab.run=agent lab.node=%s",
		       arch.cmdline, node->name);
	for (i = 0; i < node->nports && len < (int)sizeof(cmdline); i++) {
		qemu_mac(n, i, mac);
		len += snprintf(cmdline + len, sizeof(cmdline) - len, " lab.if.%s=%s",
				node->ports[i].ifname, mac);
	}
	/* With -icount the guest's TSC counts instructions, not the host's ticks. */
	if (arch.tcg_tsc_param[0] && o->host_tsc_khz && !strcmp(o->accel, "tcg") &&
	    !(o->qemu_extra && strstr(o->qemu_extra, "-icount"))) {
		if (!*o->host_tsc_khz)
			*o->host_tsc_khz = host_tsc_khz();
		if (*o->host_tsc_khz && len < (int)sizeof(cmdline))
			len += snprintf(cmdline + len, sizeof(cmdline) - len, " %s=%lu",
					arch.tcg_tsc_param, *o->host_tsc_khz);
	}
	if (o->append && *o->append && len < (int)sizeof(cmdline))
		len += snprintf(cmdline + len, sizeof(cmdline) - len, " %s", o->append);
	if (len >= (int)sizeof(cmdline)) {
		fprintf(stderr, "lab: node %s: kernel command line longer than %zu bytes\n",
			node->name, sizeof(cmdline) - 1);
		free(img);
		return NULL;
	}

	add(&b, "%s", arch.qemu);
	add(&b, "-M");
	add(&b, "%s", arch.machine);
	if (arch.cpu[0]) {
		add(&b, "-cpu");
		add(&b, "%s", arch.cpu);
	}
	add(&b, "-accel");
	add(&b, "%s", o->accel);
	add(&b, "-m");
	add(&b, "%d", node->mem_mib);
	/*
	 * One core per socket: the lab's x86_64 kernels have no ACPI, and the
	 * MP table SeaBIOS writes lists only the first core of each socket.
	 */
	add(&b, "-smp");
	add(&b, "%d,sockets=%d,cores=1", node->cpus, node->cpus);
	add(&b, "-nodefaults");
	add(&b, "-no-user-config");
	add(&b, "-display");
	add(&b, "none");
	add(&b, "-no-reboot");
	add(&b, "-kernel");
	add(&b, "%s", img->kernel);
	add(&b, "-append");
	add(&b, "%s", cmdline);
	/*
	 * The userland, then the payload images: read-only EROFS files that
	 * every guest of every lab shares, read on demand.  The serial is
	 * the image's name: the guest's init mounts NAME on /lab/NAME.  The
	 * disk's optimal I/O size makes the guest's readahead 16 MiB, which
	 * is every file of the images whole at its first touch: under TCG
	 * each read is a costly round trip (with the default 128 KiB a lab
	 * guest's first line came 50 ms later on arm64, 180 ms on x86_64, in
	 * 15 paired boots), and a file in the host's page cache has no
	 * better unit.
	 */
	for (i = 0; i < img->ndisks; i++) {
		add(&b, "-drive");
		rd = opt_value(img->disk[i]);
		add(&b, "file=%s,if=none,id=disk%d,format=raw,readonly=on", rd, i);
		free(rd);
		add(&b, "-device");
		add(&b, "virtio-blk-pci,drive=disk%d,serial=%s,opt_io_size=%d", i,
		    img->disk_name[i], 8 << 20);
	}
	free(img);
	/* A socket to attach to (lab shell: console NODE), logged either way. */
	add(&b, "-chardev");
	rd = opt_value(o->run_dir);
	add(&b, "socket,id=console,path=%s/%s.console,server=on,wait=off,logfile=%s/%s.console.log",
	    rd, node->name, rd, node->name);
	add(&b, "-serial");
	add(&b, "chardev:console");
	add(&b, "-device");
	add(&b, "virtio-serial-pci");
	add(&b, "-chardev");
	add(&b, "socket,id=ctl,path=%s/%s.ctl,server=on,wait=off", rd, node->name);
	add(&b, "-device");
	add(&b, "virtserialport,chardev=ctl,name=lab.ctl");
	/* QMP: the launcher's link-down and link-up (set_link) go here. */
	add(&b, "-chardev");
	add(&b, "socket,id=qmp,path=%s/%s.qmp,server=on,wait=off", rd, node->name);
	free(rd);
	add(&b, "-mon");
	add(&b, "chardev=qmp,mode=control");

	add_nics(&b, t, n, o);
	if (o->qemu_extra)
		add_words(&b, o->qemu_extra);
	return b.v;
}

void qemu_argv_free(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static void print_word(FILE *f, const char *w)
{
	const char *c;

	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./:=,+@%") == strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (c = w; *c; c++)
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	fputc('\'', f);
}

void qemu_argv_print(FILE *f, char **argv)
{
	int i;

	for (i = 0; argv[i]; i++) {
		if (i)
			fputs(argv[i][0] == '-' ? " \\\n    " : " ", f);
		print_word(f, argv[i]);
	}
	fputc('\n', f);
}
