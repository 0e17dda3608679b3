// SPDX-License-Identifier: GPL-2.0
/*
 * Guest lifecycle: start each node's QEMU, notice when one exits (and
 * whether it panicked), wait for every agent's READY, stop them all, and
 * read their consoles for what the kernel reported meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

int guest_spawn(struct lab *l, int n, FILE *reproduce)
{
	const struct topo_node *node = &l->t->nodes[n];
	char **argv = qemu_argv(l->t, n, &l->o->qemu);
	char path[4096];
	pid_t parent = getpid();
	int fd;

	if (!argv)
		return -1;
	qemu_argv_print(reproduce, argv);

	snprintf(path, sizeof(path), "%s/%s.qemu.log", l->o->qemu.run_dir, node->name);
	l->nodes[n].pid = fork();
	if (l->nodes[n].pid < 0) {
		perror("lab: fork");
		qemu_argv_free(argv);
		return -1;
	}
	if (l->nodes[n].pid == 0) {
		/* QEMU must not outlive the launcher, however it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);	/* or QEMU holds a spare */
		}
		close(0);
		open("/dev/null", O_RDONLY);
		signal(SIGINT, SIG_IGN);	/* the launcher decides when */
		execvp(argv[0], argv);
		fprintf(stderr, "lab: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	qemu_argv_free(argv);
	return 0;
}

/* What a kernel prints when it panics. */
static const char *const panic_marks[] = { "Kernel panic", NULL };

/*
 * What a kernel prints when it finds a bug in itself: a panic (also one
 * that came after the guest's last command), BUG and WARN, and KASAN,
 * lockdep and RCU reports (the debug kernels print them all; the quiet lab
 * kernels at least panics and BUG).
 */
static const char *const report_marks[] = {
	"Kernel panic", "BUG:", "WARNING:", "KASAN", "possible circular",
	"possible recursive", "inconsistent lock", "suspicious RCU", NULL
};

/* Node N's console log, as QEMU writes it (logfile=). */
static void console_path(struct lab *l, int n, char *path, size_t size)
{
	snprintf(path, size, "%s/%s.console.log", l->o->qemu.run_dir, l->t->nodes[n].name);
}

static FILE *console_open(struct lab *l, int n)
{
	char path[4096];

	console_path(l, n, path, sizeof(path));
	return fopen(path, "re");
}

/* The first line of node N's console holding one of MARKS, from it on; or "". */
static void console_find(struct lab *l, int n, const char *const marks[],
			 char *buf, size_t size)
{
	char *line = NULL, *p = NULL;
	size_t cap = 0;
	FILE *f = console_open(l, n);
	int i;

	buf[0] = '\0';
	if (!f)
		return;
	/* Whole lines, however long: a mark must not straddle two reads. */
	while (!p && getline(&line, &cap, f) >= 0)
		for (i = 0; marks[i] && !p; i++)
			p = strstr(line, marks[i]);
	fclose(f);
	/* It goes into a Bail out! line: one line, no terminal escapes. */
	if (p)
		lab_printable(buf, size, p, strcspn(p, "\r\n"));
	free(line);
}

void guests_check_consoles(struct lab *l)
{
	char path[4096];
	struct stat st;
	int n;

	if (lab_now_ms() - l->consoles_checked_ms < 1000)
		return;
	l->consoles_checked_ms = lab_now_ms();
	for (n = 0; n < l->t->nnodes && !l->failure[0]; n++) {
		console_path(l, n, path, sizeof(path));
		if (!stat(path, &st) && st.st_size > LAB_CONSOLE_MAX)
			lab_fail(l, "node %s: its console printed over %d MiB (see %s.console.log)",
				 l->t->nodes[n].name, LAB_CONSOLE_MAX >> 20, l->t->nodes[n].name);
	}
}

void guests_reap(struct lab *l)
{
	char why[512];
	int status, n;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (n = 0; n < l->t->nnodes; n++)
			if (l->nodes[n].pid == pid)
				break;
		if (n == l->t->nnodes)
			continue;
		l->nodes[n].pid = 0;
		if (l->stopping)
			continue;
		console_find(l, n, panic_marks, why, sizeof(why));
		if (why[0]) {
			if (!l->failure[0])
				l->failed_node = n;
			lab_fail(l, "node %s panicked: %s (see %s.console.log)",
				 l->t->nodes[n].name, why, l->t->nodes[n].name);
		} else {
			lab_fail(l, "node %s: QEMU exited with status %d (see %s.qemu.log)",
				 l->t->nodes[n].name,
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
				 l->t->nodes[n].name);
		}
	}
}

void guests_stop(struct lab *l)
{
	long deadline;
	int n, alive;

	l->stopping = 1;
	for (n = 0; n < l->t->nnodes; n++)
		if (l->nodes[n].pid)
			kill(l->nodes[n].pid, SIGTERM);
	deadline = lab_now_ms() + 3000;
	do {
		alive = 0;
		guests_reap(l);
		for (n = 0; n < l->t->nnodes; n++)
			alive |= l->nodes[n].pid != 0;
		if (alive)
			usleep(20000);
	} while (alive && lab_now_ms() < deadline);
	for (n = 0; n < l->t->nnodes; n++)
		if (l->nodes[n].pid) {
			kill(l->nodes[n].pid, SIGKILL);
			waitpid(l->nodes[n].pid, NULL, 0);
			l->nodes[n].pid = 0;
		}
}

void guests_check_reports(struct lab *l)
{
	char what[512];
	int n;

	for (n = 0; n < l->t->nnodes && !l->failure[0]; n++) {
		console_find(l, n, report_marks, what, sizeof(what));
		if (!what[0])
			continue;
		l->failed_node = n;
		lab_fail(l, "node %s: the kernel reported a problem: %s (see %s.console.log)",
			 l->t->nodes[n].name, what, l->t->nodes[n].name);
	}
}

void guest_console_tail(struct lab *l, int n, int max,
			void (*show)(struct lab *l, const char *line))
{
	char *ring[64] = { NULL }, *line = NULL;
	size_t cap = 0;
	int i, count = 0, after = -1;
	FILE *f = console_open(l, n);

	if (max > 64)
		max = 64;
	if (!f)
		return;
	/* The lines before the first mark, and half as many after: its trace. */
	while (after && getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		free(ring[count % max]);
		ring[count++ % max] = strdup(line);
		if (after > 0) {
			after--;
			continue;
		}
		/* report_marks holds the panic's mark too */
		for (i = 0; after < 0 && report_marks[i]; i++)
			if (strstr(line, report_marks[i]))
				after = max / 2;
	}
	fclose(f);
	free(line);
	for (i = count > max ? count - max : 0; i < count; i++)
		if (ring[i % max])
			show(l, ring[i % max]);
	for (i = 0; i < max; i++)
		free(ring[i]);
}
