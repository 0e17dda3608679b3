// SPDX-License-Identifier: GPL-2.0
/*
 * Guest arches, read from TOP/arch/NAME.conf when the launcher runs: adding
 * an arch is adding that file (and its Kconfig fragment), not editing C.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int arch_names(const char *top, char *buf, size_t size)
{
	char path[4096], *names[64];
	struct dirent *e;
	size_t len, used = 0;
	int n = 0, i, rc = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/arch", top);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < 64) {
		len = strlen(e->d_name);
		if (len > 5 && len - 5 < ARCH_NAME_MAX && !strcmp(e->d_name + len - 5, ".conf"))
			names[n++] = strndup(e->d_name, len - 5);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!names[i] || used + strlen(names[i]) + 2 > size)
			rc = -1;
		else
			used += snprintf(buf + used, size - used, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return n && !rc ? 0 : -1;
}

/* Appends the options of a cmdline file (one or more a line, # comments). */
static int read_cmdline_file(const char *path, char *cmdline, size_t size)
{
	char line[1024];
	size_t used = strlen(cmdline);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#\r\n")] = '\0';
		if (line[strspn(line, " \t")])
			used += snprintf(cmdline + used, size - used, "%s%s",
					 used ? " " : "", line + strspn(line, " \t"));
	}
	fclose(f);
	return 0;
}

struct arch_key {
	const char *key;
	size_t offset, size;
};

#define KEY(name) { #name, offsetof(struct arch_desc, name), \
		    sizeof(((struct arch_desc *)0)->name) }

static const struct arch_key keys[] = {
	KEY(qemu), KEY(machine), KEY(cpu), KEY(kernel_image), KEY(kernel_image_debug),
	KEY(cross_compile),
};

/* One KEY=value line; keys the launcher does not use are the scripts'. */
static void set_key(struct arch_desc *a, const char *key, const char *value)
{
	size_t i, used;

	if (!strcmp(key, "cmdline")) {
		used = strlen(a->cmdline);
		snprintf(a->cmdline + used, sizeof(a->cmdline) - used, "%s%s",
			 used ? " " : "", value);
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i].key))
			snprintf((char *)a + keys[i].offset, keys[i].size, "%s", value);
}

int arch_load(const char *top, const char *name, struct arch_desc *a)
{
	char path[4096], line[1024], *eq;
	FILE *f;

	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(path, sizeof(path), "%s/configs/common.cmdline", top);
	if (read_cmdline_file(path, a->cmdline, sizeof(a->cmdline))) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/arch/%s.conf", top, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		set_key(a, line, eq + 1);
	}
	fclose(f);
	if (!a->qemu[0] || !a->machine[0] || !a->kernel_image[0]) {
		fprintf(stderr, "lab: %s: qemu=, machine= and kernel_image= are required\n", path);
		return -1;
	}
	if (!a->kernel_image_debug[0])
		snprintf(a->kernel_image_debug, sizeof(a->kernel_image_debug), "%s",
			 a->kernel_image);
	return 0;
}

int arch_native(const char *top, const char *names, char *buf, size_t size)
{
	struct arch_desc a;
	const char *p = names;
	size_t len;

	while (*p) {
		len = strcspn(p, " ");
		snprintf(buf, size, "%.*s", (int)len, p);
		if (!arch_load(top, buf, &a) && !a.cross_compile[0])
			return 0;
		p += len + (p[len] == ' ');
	}
	return -1;
}
