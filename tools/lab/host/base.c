// SPDX-License-Identifier: GPL-2.0
/* What every unit of the running launcher shares (base.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "base.h"
#include "internal.h"

long long lab_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

long lab_now_ms(void)
{
	return lab_now_us() / 1000;
}

void lab_printable(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < size - 1; i++)
		dst[i] = ((unsigned char)src[i] < ' ' && src[i] != '\t') || src[i] == 127 ?
			 '?' : src[i];
	dst[i] = '\0';
}

void lab_fail(struct lab *l, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (l->failure[0])
		return;
	va_start(ap, fmt);
	vsnprintf(l->failure, sizeof(l->failure), fmt, ap);
	va_end(ap);
	/* One line: it becomes a KTAP "Bail out!" (a command may hold newlines). */
	for (p = l->failure; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

int lab_sock_path(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		fprintf(stderr, "lab: %s: socket path longer than %zu bytes\n",
			path, sizeof(sa->sun_path) - 1);
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}
