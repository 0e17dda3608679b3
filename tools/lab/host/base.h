/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helpers every unit of the running launcher shares: the clock,
 * failing the lab, showing what a guest sent, socket paths.  base.c calls
 * no other unit: ctl.c, guest.c, hub.c and link.c use it without reaching
 * back into run.c, which uses them.
 */
#ifndef LAB_BASE_H
#define LAB_BASE_H

#include <stddef.h>
#include <sys/un.h>

struct lab;

/* Microseconds on the monotonic clock: what fault queues count in. */
long long lab_now_us(void);
/* The same clock in milliseconds: deadlines and timeouts. */
long lab_now_ms(void);
/* LEN bytes of SRC into DST (SIZE), control characters and NULs as '?'. */
void lab_printable(char *dst, size_t size, const char *src, size_t len);
/* Fails L for the reason FMT says, on one line; the first reason stays. */
void lab_fail(struct lab *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* PATH into SA; -1, named on stderr, if it is too long for a socket. */
int lab_sock_path(struct sockaddr_un *sa, const char *path);

#endif
