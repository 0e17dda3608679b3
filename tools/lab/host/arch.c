// SPDX-License-Identifier: GPL-2.0
/*
 * Guest arches, read from TOP/arch/NAME.conf when the launcher runs: adding
 * an arch is adding that file (and its Kconfig fragment), not editing C.
 * A value that does not fit is an error naming the file and key, never a
 * silently shorter command line.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

#define ARCH_MAX	64

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends SEP and TEXT to BUF (of SIZE bytes); -1, BUF unchanged, if too long. */
static int append(char *buf, size_t size, const char *sep, const char *text)
{
	size_t used = strlen(buf), need = strlen(text) + (used ? strlen(sep) : 0);

	if (used + need >= size)
		return -1;
	snprintf(buf + used, size - used, "%s%s", used ? sep : "", text);
	return 0;
}

static int valid_name(const char *name)
{
	return name[0] && strlen(name) < ARCH_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(name);
}

int arch_names(const char *top, char *buf, size_t size)
{
	char path[4096], *names[ARCH_MAX];
	struct dirent *e;
	int n = 0, i, rc = 0;
	size_t len;
	DIR *d;

	snprintf(path, sizeof(path), "%s/arch", top);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && !rc) {
		len = strlen(e->d_name);
		if (len <= 5 || strcmp(e->d_name + len - 5, ".conf"))
			continue;
		if (n == ARCH_MAX) {
			fprintf(stderr, "lab: %s: more than %d arches\n", path, ARCH_MAX);
			rc = -1;
			break;
		}
		names[n] = strndup(e->d_name, len - 5);
		if (!names[n]) {
			rc = -1;
			break;
		}
		if (!valid_name(names[n])) {
			fprintf(stderr, "lab: %s/%s: an arch name is 1 to %d of a-z, 0-9, '_', '-'\n",
				path, e->d_name, ARCH_NAME_MAX - 1);
			rc = -1;
		}
		n++;
	}
	closedir(d);
	if (!rc && !n) {
		fprintf(stderr, "lab: %s: no NAME.conf\n", path);
		rc = -1;
	}
	if (!rc)
		qsort(names, n, sizeof(*names), cmp_names);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!rc && append(buf, size, " ", names[i]))
			rc = -1;
		free(names[i]);
	}
	return rc;
}

/* Appends the options of a cmdline file (whole-line # comments). */
static int read_cmdline_file(const char *path, char *cmdline, size_t size)
{
	char line[1024], *opts;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		opts = line + strspn(line, " \t");
		if (*opts && *opts != '#' && append(cmdline, size, " ", opts)) {
			fprintf(stderr, "lab: %s: the command line is longer than %zu bytes\n",
				path, size - 1);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

struct arch_key {
	const char *key;
	size_t offset, size;
};

#define KEY(name) { #name, offsetof(struct arch_desc, name), \
		    sizeof(((struct arch_desc *)0)->name) }

static const struct arch_key keys[] = {
	KEY(qemu), KEY(machine), KEY(cpu), KEY(kernel_image), KEY(kernel_image_debug),
	KEY(cross_compile), KEY(tcg_tsc_param),
};

/* One KEY=value line; keys the launcher does not use are the scripts'. */
static int set_key(struct arch_desc *a, const char *path, const char *key,
		   const char *value)
{
	size_t i;

	if (!strcmp(key, "cmdline")) {
		if (!append(a->cmdline, sizeof(a->cmdline), " ", value))
			return 0;
		fprintf(stderr, "lab: %s: cmdline=: the command line is longer than %zu bytes\n",
			path, sizeof(a->cmdline) - 1);
		return -1;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		if (strlen(value) >= keys[i].size) {
			fprintf(stderr, "lab: %s: %s=: longer than %zu bytes\n",
				path, key, keys[i].size - 1);
			return -1;
		}
		strcpy((char *)a + keys[i].offset, value);
	}
	return 0;
}

int arch_load(const char *top, const char *name, struct arch_desc *a)
{
	char path[4096], line[2048], *eq;
	int rc = 0;
	FILE *f;

	memset(a, 0, sizeof(*a));
	if (!valid_name(name)) {
		fprintf(stderr, "lab: '%s' is not an arch name\n", name);
		return -1;
	}
	strcpy(a->name, name);
	snprintf(path, sizeof(path), "%s/configs/common.cmdline", top);
	if (read_cmdline_file(path, a->cmdline, sizeof(a->cmdline)))
		return -1;
	snprintf(path, sizeof(path), "%s/arch/%s.conf", top, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		rc = set_key(a, path, line, eq + 1);
	}
	fclose(f);
	if (rc)
		return -1;
	if (!a->qemu[0] || !a->machine[0] || !a->kernel_image[0]) {
		fprintf(stderr, "lab: %s: qemu=, machine= and kernel_image= are required\n", path);
		return -1;
	}
	/* As the Makefile and tools/build/arch.sh: the debug kernel boots the same image. */
	if (!a->kernel_image_debug[0])
		strcpy(a->kernel_image_debug, a->kernel_image);
	return 0;
}

/* Whether TOP/arch/NAME.conf has a non-empty cross_compile=. */
static int arch_is_cross(const char *top, const char *name)
{
	char path[4096], line[2048];
	int cross = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/arch/%s.conf", top, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cross_compile=", 14) && line[14] && line[14] != '\n')
			cross = 1;
	fclose(f);
	return cross;
}

int arch_native(const char *top, const char *names, char *buf, size_t size)
{
	const char *p = names;
	size_t len;

	while (*p) {
		len = strcspn(p, " ");
		snprintf(buf, size, "%.*s", (int)len, p);
		if (arch_is_cross(top, buf) == 0)
			return 0;
		p += len + (p[len] == ' ');
	}
	return -1;
}
