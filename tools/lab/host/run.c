// SPDX-License-Identifier: GPL-2.0
/*
 * Running a lab (run.h): start every node, wait for its agent, run the
 * setup lines and the tests with their link steps in file order, report
 * them in KTAP, stop.  The waits go through the event loop (loop.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

/* KTAP goes to stdout and to the run folder's results.ktap. */
static void report(struct lab *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (l->o->results) {
		va_start(ap, fmt);
		vfprintf(l->o->results, fmt, ap);
		va_end(ap);
		fflush(l->o->results);
	}
}

/* Node N's last output as KTAP diagnostics: its end, if it was long. */
static void print_output(struct lab *l, int n)
{
	const struct node_rt *nr = &l->nodes[n];
	const char *p = nr->out, *end = nr->out + nr->outlen, *nl;
	char shown[1024];
	size_t len;

	if (!p)
		return;
	if (nr->outcut) {
		nl = memchr(p, '\n', end - p);	/* from the first whole line */
		p = nl ? nl + 1 : p;
		report(l, "# [%zu bytes before these lines cut; all of it: %s]\n",
		       nr->outcut + (p - nr->out), nr->logname[0] ? nr->logname : "not kept");
	}
	/* Line by line, control characters and NULs shown as '?'. */
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		len = (nl ? nl : end) - p;
		lab_printable(shown, sizeof(shown), p, len);
		report(l, "# %s%s\n", shown, len >= sizeof(shown) ? "[...]" : "");
		p += len + 1;
	}
}

/*
 * Every node's setup lines, in order per node and in parallel across
 * nodes, each within its timeout; a node stops at its first failing line.
 */
static void run_setup(struct lab *l)
{
	const struct topo *t = l->t;
	const struct topo_setup *s;
	char log[64];
	int n, pending;

	for (;;) {
		pending = 0;
		for (n = 0; n < t->nnodes && !l->failure[0]; n++) {
			struct node_rt *nr = &l->nodes[n];
			const struct topo_node *node = &t->nodes[n];

			if (nr->busy) {
				pending = 1;
				s = &node->setup[nr->next_setup - 1];
				if (lab_command_overdue(l, n))
					lab_fail(l, "node %s: setup line %s:%d timed out after %ds and could not be killed",
						 node->name, t->path, s->line, s->timeout_s);
				continue;
			}
			if (nr->next_setup > 0 && (nr->status || nr->killed) &&
			    !nr->setup_failed)
				nr->setup_failed = node->setup[nr->next_setup - 1].line;
			if (nr->setup_failed || nr->next_setup == node->nsetup)
				continue;
			s = &node->setup[nr->next_setup];
			snprintf(log, sizeof(log), "setup-%s.log", node->name);
			if (ctl_start(l, n, s->command, log, s->timeout_s)) {
				lab_node_lost(l, n);
				return;
			}
			nr->next_setup++;
			pending = 1;
		}
		if (!pending || l->failure[0])
			return;
		lab_pump(l, 100);
	}
}

/* A run folder used again (-r) must not mix an earlier run's output in. */
static void remove_old_logs(struct lab *l)
{
	char path[4400];
	struct dirent *de;
	DIR *d = opendir(l->o->qemu.run_dir);
	size_t len;

	while (d && (de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".log") ||
		    (strncmp(de->d_name, "test-", 5) && strncmp(de->d_name, "setup-", 6)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", l->o->qemu.run_dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

/*
 * Each QEMU's --version, once per binary.  Asked while the guests boot,
 * not before: a QEMU start costs ~0.1 s, which a one-guest boot of ~1.5 s
 * would otherwise pay before its first line.
 */
static void reproduce_qemu_versions(const struct lab *l, FILE *reproduce)
{
	const struct topo *t = l->t;
	char asked[TOPO_MAX_NODES][sizeof(((struct arch_desc *)0)->qemu)];
	char cmd[256], line[256];
	struct arch_desc arch;
	int n, m, nasked = 0;
	FILE *in;

	for (n = 0; n < t->nnodes; n++) {
		if (arch_load(l->o->qemu.top, t->nodes[n].arch, &arch))
			continue;
		for (m = 0; m < nasked && strcmp(asked[m], arch.qemu); m++)
			;
		if (m < nasked)
			continue;
		snprintf(asked[nasked++], sizeof(asked[0]), "%s", arch.qemu);
		snprintf(cmd, sizeof(cmd), "%s --version", arch.qemu);
		in = popen(cmd, "r");
		if (in && fgets(line, sizeof(line), in))
			fprintf(reproduce, "# %s: %s", arch.qemu, line);
		if (in)
			pclose(in);
	}
}

struct lab *lab_start(const struct topo *t, const struct run_opts *o)
{
	struct lab *l = calloc(1, sizeof(*l));
	char path[4096];
	FILE *reproduce;
	int n;

	if (!l)
		return NULL;
	l->t = t;
	l->o = o;
	l->failed_node = -1;
	l->nodes = calloc(t->nnodes, sizeof(*l->nodes));
	if (!l->nodes) {
		free(l);
		return NULL;
	}
	for (n = 0; n < t->nnodes; n++) {
		l->nodes[n].ctl = -1;
		l->nodes[n].logfd = -1;
	}

	lab_signals();

	snprintf(path, sizeof(path), "%s/reproduce", o->qemu.run_dir);
	reproduce = fopen(path, "ae");
	if (!reproduce) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		lab_free(l);
		return NULL;
	}
	if (hubs_open(l)) {
		fclose(reproduce);
		lab_free(l);
		return NULL;
	}
	remove_old_logs(l);
	fprintf(reproduce, "# QEMU command lines, one command per node\n");
	for (n = 0; n < t->nnodes; n++)
		if (guest_spawn(l, n, reproduce)) {
			fclose(reproduce);
			lab_stop(l);
			return NULL;
		}
	reproduce_qemu_versions(l, reproduce);
	fclose(reproduce);
	return l;
}

/* Waits for every node's agent to say READY, within the boot timeout. */
static int wait_ready(struct lab *l)
{
	long deadline = lab_now_ms() + l->o->boot_timeout_s * 1000L;
	int n, waiting;

	for (;;) {
		waiting = -1;
		for (n = 0; n < l->t->nnodes; n++)
			if (!l->nodes[n].ready) {
				waiting = n;
				break;
			}
		if (waiting < 0)
			return 0;
		if (l->failure[0])
			return -1;
		if (lab_now_ms() > deadline) {
			lab_fail(l, "node %s did not come up within %ds (see %s.console.log)",
				 l->t->nodes[waiting].name, l->o->boot_timeout_s,
				 l->t->nodes[waiting].name);
			return -1;
		}
		lab_pump(l, 100);
	}
}

int lab_setup(struct lab *l)
{
	if (wait_ready(l) == 0)
		run_setup(l);
	return l->failure[0] ? -1 : 0;
}

const char *lab_output(const struct lab *l, int n)
{
	return l->nodes[n].out;
}

const char *lab_failure(const struct lab *l)
{
	return l->failure[0] ? l->failure : NULL;
}

void lab_free(struct lab *l)
{
	int n;

	for (n = 0; n < l->t->nnodes; n++) {
		free(l->nodes[n].out);
		free(l->nodes[n].sendq);
		if (l->nodes[n].ctl >= 0)
			close(l->nodes[n].ctl);
		if (l->nodes[n].logfd >= 0)
			close(l->nodes[n].logfd);
	}
	hubs_close(l);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	free(l->nodes);
	free(l);
}

void lab_stop(struct lab *l)
{
	guests_stop(l);
	lab_free(l);
}

/* One KTAP result per node's setup; counts go to *PASSED and *FAILED. */
static void report_setup(struct lab *l, int *num, int *passed, int *failed)
{
	const struct topo *t = l->t;
	int n;

	for (n = 0; n < t->nnodes && !l->failure[0]; n++) {
		struct node_rt *nr = &l->nodes[n];

		++*num;
		if (nr->setup_failed) {
			++*failed;
			report(l, "not ok %d setup of %s\n", *num, t->nodes[n].name);
			if (nr->killed)
				report(l, "# %s:%d: setup line timed out after %ds; killed:\n",
				       t->path, nr->setup_failed,
				       t->nodes[n].setup[nr->next_setup - 1].timeout_s);
			else
				report(l, "# %s:%d: setup line failed with status %d:\n", t->path,
				       nr->setup_failed, nr->status);
			print_output(l, n);
		} else {
			++*passed;
			report(l, "ok %d setup of %s\n", *num, t->nodes[n].name);
		}
	}
}

/* A link step between tests, as a KTAP comment; a step that fails fails the lab. */
static void run_link_step(struct lab *l, const struct topo_test *tt)
{
	const struct topo_node *node = &l->t->nodes[tt->node];
	char why[512];

	report(l, "# %s:%d: %s %s:%s%s%s\n", l->t->path, tt->line, topo_step_name(tt->step), node->name,
	       node->ports[tt->port].ifname, tt->command ? " " : "", tt->command ?: "");
	if (!lab_link_step(l, tt, why, sizeof(why)))
		return;
	lab_pump(l, 0);		/* a signal that cut QMP short is named as the reason */
	if (!l->failure[0])
		lab_fail(l, "%s:%d: %s %s:%s: %s", l->t->path, tt->line, topo_step_name(tt->step),
			 node->name, node->ports[tt->port].ifname, why);
}

/*
 * Test TT's command; with until=, again every second while it fails, until
 * it passes or until= seconds have passed since the first try.  Its status.
 */
static int run_test(struct lab *l, const struct topo_test *tt, const char *log, int *tries)
{
	long start = lab_now_ms(), retry;
	int status;

	for (*tries = 1;; ++*tries) {
		status = lab_command(l, tt->node, tt->command, tt->timeout_s, log);
		if (status == 0 || status == -2 || lab_now_ms() - start >= tt->until_s * 1000L)
			return status;
		/* The wires keep relaying while it waits. */
		for (retry = lab_now_ms() + 1000; lab_now_ms() < retry && !l->failure[0];)
			lab_pump(l, retry - lab_now_ms());
		if (l->failure[0])
			return -2;
	}
}

/* The topology's tests in file order, one KTAP result each, link steps between. */
static void run_tests(struct lab *l, int *num, int *passed, int *failed)
{
	const struct topo *t = l->t;
	long start;
	char log[64];
	int i, status, tries;

	for (i = 0; i < t->ntests && !l->failure[0]; i++) {
		const struct topo_test *tt = &t->tests[i];

		if (tt->step != TOPO_TEST) {
			run_link_step(l, tt);
			continue;
		}
		++*num;
		snprintf(log, sizeof(log), "test-%d.log", *num);
		start = lab_now_ms();
		status = run_test(l, tt, log, &tries);
		if (status == -2 && l->failure[0])
			break;
		if (status == 0) {
			++*passed;
			report(l, "ok %d %s\n", *num, tt->description);
			if (tries > 1)
				report(l, "# passed on try %d, after %.1f s\n", tries,
				       (lab_now_ms() - start) / 1000.0);
			continue;
		}
		++*failed;
		report(l, "not ok %d %s\n", *num, tt->description);
		if (tt->until_s)
			report(l, "# %s:%d: still failing after %d tries in %.1f s (until=%d)\n",
			       t->path, tt->line, tries, (lab_now_ms() - start) / 1000.0,
			       tt->until_s);
		if (status == -1)
			report(l, "# %s:%d: timed out after %ds on %s; killed\n", t->path,
			       tt->line, tt->timeout_s, t->nodes[tt->node].name);
		else if (status == -2)
			report(l, "# %s:%d: node %s is not reachable\n", t->path, tt->line,
			       t->nodes[tt->node].name);
		else
			report(l, "# %s:%d: exit status %d on %s\n", t->path, tt->line,
			       status, t->nodes[tt->node].name);
		print_output(l, tt->node);
	}
}

/* A console line as a KTAP diagnostic: terminal escapes shown as '?'. */
static void show_console_line(struct lab *l, const char *line)
{
	char shown[512];

	lab_printable(shown, sizeof(shown), line, strlen(line));
	report(l, "# %s\n", shown);
}

/*
 * After the guests stopped: 2 (and why, as KTAP and on stderr, with the
 * console lines around a panic or kernel report) if L failed.
 */
static int lab_conclude(struct lab *l, int failed)
{
	if (!l->failure[0])
		return failed ? 1 : 0;
	/* Bail out! starts a line, even after output that did not end one. */
	if (l->last_streamed && l->last_streamed != '\n')
		report(l, "\n");
	report(l, "Bail out! %s\n", l->failure);
	if (l->failed_node >= 0) {
		report(l, "# console of %s:\n", l->t->nodes[l->failed_node].name);
		guest_console_tail(l, l->failed_node, 30, show_console_line);
	}
	fprintf(stderr, "lab: %s\n", l->failure);
	return 2;
}

int lab_boot(const struct topo *t, const struct run_opts *o, const char *command,
	     int timeout_s)
{
	struct lab *l = lab_start(t, o);
	int status = -2, rc;

	if (!l)
		return 2;
	if (!lab_setup(l))
		status = lab_command(l, 0, command, timeout_s, NULL);
	if (status == -1)
		lab_fail(l, "`%s` did not finish within %ds on %s; killed", command,
			 timeout_s, t->nodes[0].name);
	guests_stop(l);
	guests_check_reports(l);
	rc = lab_conclude(l, status != 0);
	lab_free(l);
	return rc;
}

int lab_run(const struct topo *t, const struct run_opts *o)
{
	int passed = 0, failed = 0, num = 0, rc;
	struct lab *l = lab_start(t, o);

	if (!l)
		return 2;
	report(l, "KTAP version 1\n1..%d\n", t->nnodes + (o->shell ? 0 : topo_ntests(t)));
	lab_setup(l);
	report_setup(l, &num, &passed, &failed);
	if (o->shell && !l->failure[0])
		lab_shell(l);
	if (!o->shell)
		run_tests(l, &num, &passed, &failed);

	guests_stop(l);
	guests_check_reports(l);
	rc = lab_conclude(l, failed);
	/* A failed lab: what did not pass counts as failed, never nothing. */
	if (rc == 2 && passed + failed == t->nnodes + topo_ntests(t))
		failed++;
	else if (rc == 2)
		failed = t->nnodes + topo_ntests(t) - passed;
	if (!o->shell)
		report(l, "%d passed, %d failed, 0 skipped\n", passed, failed);
	lab_free(l);
	return rc;
}
