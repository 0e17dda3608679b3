// SPDX-License-Identifier: GPL-2.0
/*
 * The control channel to each node's agent (proto.h): connect to the
 * virtio-serial socket QEMU serves, send commands, parse what comes back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

void ctl_connect(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	struct sockaddr_un sa;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.ctl", l->o->qemu.run_dir, l->t->nodes[n].name);
	if (lab_sock_path(&sa, path))
		return;
	/* Non-blocking: a guest that stops reading must not stall the loop. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);	/* QEMU has not created it yet */
		return;
	}
	nr->ctl = fd;
	nr->connected = 1;
}

/*
 * BUF into FD as long as *DONE stays within LAB_LOG_MAX, then once a note
 * that the rest was cut: a test's log and lab boot's results file alike.
 */
static void write_capped(int fd, size_t *done, const char *buf, size_t len)
{
	static const char cut[] = "\n[lab: output cut here, at 16 MiB]\n";
	size_t room = *done < LAB_LOG_MAX ? LAB_LOG_MAX - *done : 0;

	if (fd < 0 || *done > LAB_LOG_MAX)
		return;
	if (write(fd, buf, len < room ? len : room) < 0)
		return;
	*done += len;
	if (*done > LAB_LOG_MAX && write(fd, cut, sizeof(cut) - 1) < 0)
		return;
}

/*
 * A command's output: logged, and its end kept for the KTAP diagnostics;
 * with stream_output passed on at once to stdout and the results file
 * (lab boot) instead.
 */
static void ctl_output(struct lab *l, struct node_rt *nr, const char *buf, size_t len)
{
	size_t drop;

	if (!len)
		return;		/* an empty OUT is allowed, and nothing to show */
	if (l->o->stream_output) {
		fwrite(buf, 1, len, stdout);
		fflush(stdout);
		/*
		 * The results file is capped like a test's log; the terminal is
		 * not.  report() leaves the FILE flushed, so its fd is in step.
		 */
		write_capped(l->o->results ? fileno(l->o->results) : -1, &l->streamed,
			     buf, len);
		l->last_streamed = buf[len - 1];
		return;
	}
	if (l->echo) {
		fwrite(buf, 1, len, stdout);
		fflush(stdout);
	}
	write_capped(nr->logfd, &nr->logged, buf, len);
	if (!nr->out) {
		nr->out = malloc(2 * LAB_TAIL_MAX + PROTO_MAX_OUT + 1);
		if (!nr->out)
			return;
	}
	memcpy(nr->out + nr->outlen, buf, len);
	nr->outlen += len;
	if (nr->outlen > 2 * LAB_TAIL_MAX) {
		drop = nr->outlen - LAB_TAIL_MAX;
		memmove(nr->out, nr->out + drop, LAB_TAIL_MAX);
		nr->outlen = LAB_TAIL_MAX;
		nr->outcut += drop;
	}
	nr->out[nr->outlen] = '\0';
}

/* The command ended: its log is complete. */
static void ctl_end(struct node_rt *nr, int status)
{
	nr->status = status;
	nr->busy = 0;
	if (nr->logfd >= 0)
		close(nr->logfd);
	nr->logfd = -1;
}

/* A decimal number from 0 to MAX, the whole of S; -1 if it is not one. */
static long header_number(const char *s, long max)
{
	char *end;
	long v;

	/* Digits only, no leading zero: one spelling a number. */
	if (*s < '0' || *s > '9' || (*s == '0' && s[1]))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || errno || v > max ? -1 : v;
}

/*
 * "SEQ NUMBER", NUMBER from 0 to MAX, into *SEQ and the return value; -1 if
 * S is not that.
 */
static long header_pair(const char *s, unsigned long *seq, long max)
{
	const char *space = strchr(s, ' ');
	char first[24];
	long v;

	if (!space || (size_t)(space - s) >= sizeof(first))
		return -1;
	memcpy(first, s, space - s);
	first[space - s] = '\0';
	v = header_number(first, LONG_MAX);
	if (v < 0)
		return -1;
	*seq = v;
	return header_number(space + 1, max);
}

/* The agent said something the protocol does not: the node is broken. */
static void ctl_garbage(struct lab *l, int n, const char *what, const char *line)
{
	char shown[41] = "";

	if (line)
		lab_printable(shown, sizeof(shown), line, strlen(line));
	lab_fail(l, "node %s: the agent sent garbage: %s%s%s%s", l->t->nodes[n].name,
		 what, line ? " '" : "", shown, line ? "'" : "");
	ctl_close(l, n);
}

/*
 * One message from the start of node N's input: 1 if it was consumed, 0 if
 * it is not all there yet, or the reason it is garbage in *BAD.
 */
static int ctl_message(struct lab *l, int n, const char **bad)
{
	struct node_rt *nr = &l->nodes[n];
	char *nl = memchr(nr->in, '\n', nr->inlen);
	unsigned long seq;
	size_t hdr;
	long v;

	if (!nl || nl - nr->in >= PROTO_MAX_LINE) {
		if (nr->inlen >= PROTO_MAX_LINE)
			*bad = "a header line longer than the protocol's";
		return 0;
	}
	if (memchr(nr->in, '\0', nl - nr->in)) {
		*bad = "a NUL byte in a header line";
		return 0;
	}
	*nl = '\0';
	hdr = nl - nr->in + 1;
	if (!strcmp(nr->in, "READY")) {
		nr->ready = 1;
	} else if (!strncmp(nr->in, "OUT ", 4)) {
		v = header_pair(nr->in + 4, &seq, PROTO_MAX_OUT);
		if (v < 0) {
			*bad = "a bad OUT header";
			return 0;
		}
		if (!nr->busy) {
			*bad = "output with no command running";
			return 0;
		}
		if (seq != nr->seq) {
			*bad = "output of another command";
			return 0;
		}
		if (nr->inlen < hdr + v) {
			*nl = '\n';
			return 0;	/* the payload is still on its way */
		}
		ctl_output(l, nr, nr->in + hdr, v);
		hdr += v;
	} else if (!strncmp(nr->in, "END ", 4)) {
		v = header_pair(nr->in + 4, &seq, 255);
		if (v < 0) {
			*bad = "a bad END header";
			return 0;
		}
		/* A second END must not turn the next command's failure into a pass. */
		if (!nr->busy) {
			*bad = "an END with no command running";
			return 0;
		}
		if (seq != nr->seq) {
			*bad = "an END of another command";
			return 0;
		}
		ctl_end(nr, v);
	} else {
		*bad = "an unknown header";
		return 0;
	}
	memmove(nr->in, nr->in + hdr, nr->inlen - hdr);
	nr->inlen -= hdr;
	return 1;
}

/* Parses what the agent sent: READY, OUT SEQ LEN + bytes, END SEQ STATUS. */
void ctl_parse(struct lab *l, int n)
{
	const char *bad = NULL;

	while (ctl_message(l, n, &bad))
		;
	/* The line is shown when it was cut at its newline, and has no NUL. */
	if (bad)
		ctl_garbage(l, n, bad, memchr(l->nodes[n].in, '\0', l->nodes[n].inlen) &&
			    strlen(l->nodes[n].in) ? l->nodes[n].in : NULL);
}

/* Commands and KILLs a guest may leave unread before it counts as stuck. */
#define CTL_SENDQ_MAX	(4 * (PROTO_MAX_CMD + PROTO_MAX_LINE))

void ctl_close(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];

	if (nr->ctl >= 0)
		close(nr->ctl);
	nr->ctl = -1;
	nr->ready = 0;
	nr->inlen = 0;
	nr->sendlen = 0;
}

int ctl_flush(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	ssize_t w;

	while (nr->sendlen) {
		w = write(nr->ctl, nr->sendq, nr->sendlen);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		memmove(nr->sendq, nr->sendq + w, nr->sendlen - w);
		nr->sendlen -= w;
	}
	return 0;
}

int ctl_send(struct lab *l, int n, const void *buf, size_t len)
{
	struct node_rt *nr = &l->nodes[n];
	char *q;

	if (nr->ctl < 0)
		return -1;
	if (nr->sendlen + len > CTL_SENDQ_MAX) {
		lab_fail(l, "node %s: the agent has left %zu bytes of commands unread",
			 l->t->nodes[n].name, nr->sendlen);
		return -1;
	}
	q = realloc(nr->sendq, nr->sendlen + len);
	if (!q) {
		lab_fail(l, "out of memory");
		return -1;
	}
	memcpy(q + nr->sendlen, buf, len);
	nr->sendq = q;
	nr->sendlen += len;
	if (ctl_flush(l, n)) {
		ctl_close(l, n);
		return -1;
	}
	return 0;
}

void ctl_receive(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	ssize_t r;

	r = read(nr->ctl, nr->in + nr->inlen, sizeof(nr->in) - nr->inlen);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (r <= 0) {
		ctl_close(l, n);
		return;
	}
	nr->inlen += r;
	ctl_parse(l, n);
}

int ctl_start(struct lab *l, int n, const char *cmd, const char *log, int timeout_s)
{
	struct node_rt *nr = &l->nodes[n];
	char hdr[PROTO_MAX_LINE], path[4096];
	struct stat st;
	int len;

	if (nr->out)
		nr->out[0] = '\0';
	nr->outlen = 0;
	nr->outcut = 0;
	nr->logged = 0;
	nr->logname[0] = '\0';
	if (log) {
		snprintf(nr->logname, sizeof(nr->logname), "%s", log);
		snprintf(path, sizeof(path), "%s/%s", l->o->qemu.run_dir, log);
		nr->logfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		/* The cap is the file's: a node's setup lines share one. */
		if (nr->logfd >= 0 && !fstat(nr->logfd, &st))
			nr->logged = st.st_size;
	}
	nr->busy = 1;
	nr->killed = 0;
	len = snprintf(hdr, sizeof(hdr), "RUN %lu %zu\n", ++nr->seq, strlen(cmd));
	nr->deadline_ms = lab_now_ms() + timeout_s * 1000L;
	if (ctl_send(l, n, hdr, len) || ctl_send(l, n, cmd, strlen(cmd))) {
		ctl_end(nr, -1);
		return -1;
	}
	return 0;
}
