// SPDX-License-Identifier: GPL-2.0
/*
 * The lab at run time: one single-threaded poll loop that watches every
 * node's control socket, relays the frames of every lan, and reaps QEMU
 * processes.  Nothing waits on a fixed sleep: nodes are ready when their
 * agent says READY, commands are done when it says END.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "run.h"

#define KILL_GRACE_MS	5000	/* a killed command must END within this */

struct node_rt {
	pid_t pid;		/* QEMU, 0 once reaped */
	int ctl;		/* control socket, -1 until connected */
	char in[PROTO_MAX_LINE + 65536];
	size_t inlen;
	int ready, busy, status;
	char *out;		/* output of the command in flight */
	size_t outlen;
	int next_setup;		/* setup lines sent so far */
	int setup_failed;	/* line of the failed setup command, or 0 */
};

struct hub {			/* a lan: one socket per member, on our side */
	int wire;
	int fd[TOPO_MAX_MEMBERS];
	struct sockaddr_un peer[TOPO_MAX_MEMBERS];
	int n;
};

struct lab {
	const struct topo *t;
	const struct run_opts *o;
	struct node_rt *nodes;
	struct hub *hubs;
	int nhubs;
	int stopping;		/* QEMU exits are expected from now on */
	char failure[1024];	/* why the lab failed, "" while it has not */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void lab_fail(struct lab *l, const char *fmt, ...)
{
	va_list ap;

	if (l->failure[0])
		return;
	va_start(ap, fmt);
	vsnprintf(l->failure, sizeof(l->failure), fmt, ap);
	va_end(ap);
}

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

static int sock_path(struct sockaddr_un *sa, const char *path)
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

static int open_hubs(struct lab *l)
{
	const struct topo *t = l->t;
	struct sockaddr_un sa;
	char path[4096];
	int w, m;

	l->hubs = calloc(t->nwires, sizeof(*l->hubs));
	if (!l->hubs)
		return -1;
	for (w = 0; w < t->nwires; w++) {
		struct hub *h;

		if (!t->wires[w].is_lan)
			continue;
		h = &l->hubs[l->nhubs++];
		h->wire = w;
		h->n = t->wires[w].nmembers;
		for (m = 0; m < h->n; m++) {
			qemu_hub_path(&l->o->qemu, w, m, path, sizeof(path));
			if (sock_path(&sa, path))
				return -1;
			h->fd[m] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (h->fd[m] < 0 || bind(h->fd[m], (struct sockaddr *)&sa, sizeof(sa))) {
				fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
				return -1;
			}
			qemu_wire_path(&l->o->qemu, w, m, path, sizeof(path));
			if (sock_path(&h->peer[m], path))
				return -1;
		}
	}
	return 0;
}

/* A frame from one member goes to every other member: a hub, no echo. */
static void relay(struct hub *h, int from)
{
	char frame[65536];
	ssize_t n;
	int m;

	while ((n = recv(h->fd[from], frame, sizeof(frame), 0)) > 0)
		for (m = 0; m < h->n; m++)
			if (m != from)
				sendto(h->fd[m], frame, n, MSG_DONTWAIT,
				       (struct sockaddr *)&h->peer[m], sizeof(h->peer[m]));
}

static int spawn(struct lab *l, int n, FILE *reproduce)
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
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
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

static void try_connect(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	struct sockaddr_un sa;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.ctl", l->o->qemu.run_dir, l->t->nodes[n].name);
	if (sock_path(&sa, path))
		return;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);	/* QEMU has not created it yet */
		return;
	}
	nr->ctl = fd;
}

/* The first "Kernel panic" line of a node's console, or "". */
static void panic_line(struct lab *l, int n, char *buf, size_t size)
{
	char path[4096], *p;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s.console.log", l->o->qemu.run_dir,
		 l->t->nodes[n].name);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(buf, size, f)) {
		p = strstr(buf, "Kernel panic");
		if (p) {
			memmove(buf, p, strlen(p) + 1);
			buf[strcspn(buf, "\r\n")] = '\0';
			fclose(f);
			return;
		}
	}
	buf[0] = '\0';
	fclose(f);
}

static void reap(struct lab *l)
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
		panic_line(l, n, why, sizeof(why));
		if (why[0])
			lab_fail(l, "node %s panicked: %s (see %s.console.log)",
				 l->t->nodes[n].name, why, l->t->nodes[n].name);
		else
			lab_fail(l, "node %s: QEMU exited with status %d (see %s.qemu.log)",
				 l->t->nodes[n].name,
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
				 l->t->nodes[n].name);
	}
}

/* Parses what the agent sent: READY, OUT LEN + bytes, END STATUS. */
static void parse_input(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	char *nl, *p;
	size_t hdr;
	unsigned long len;
	int status;

	for (;;) {
		nl = memchr(nr->in, '\n', nr->inlen);
		if (!nl)
			return;
		*nl = '\0';
		hdr = nl - nr->in + 1;
		if (!strcmp(nr->in, "READY")) {
			nr->ready = 1;
		} else if (sscanf(nr->in, "OUT %lu", &len) == 1) {
			if (nr->inlen < hdr + len) {
				*nl = '\n';
				return;	/* the payload is still on its way */
			}
			p = realloc(nr->out, nr->outlen + len + 1);
			if (p) {
				memcpy(p + nr->outlen, nr->in + hdr, len);
				nr->outlen += len;
				p[nr->outlen] = '\0';
				nr->out = p;
			}
			hdr += len;
		} else if (sscanf(nr->in, "END %d", &status) == 1) {
			nr->status = status;
			nr->busy = 0;
		}
		memmove(nr->in, nr->in + hdr, nr->inlen - hdr);
		nr->inlen -= hdr;
	}
}

/* One round of the event loop, waiting at most MS milliseconds. */
static void pump(struct lab *l, int ms)
{
	struct pollfd pfd[TOPO_MAX_NODES + TOPO_MAX_WIRES * TOPO_MAX_MEMBERS];
	int who[TOPO_MAX_NODES + TOPO_MAX_WIRES * TOPO_MAX_MEMBERS];
	int np = 0, i, h, m, n;
	ssize_t r;

	for (n = 0; n < l->t->nnodes; n++) {
		if (l->nodes[n].ctl < 0 && l->nodes[n].pid)
			try_connect(l, n);
		if (l->nodes[n].ctl >= 0) {
			pfd[np] = (struct pollfd){ .fd = l->nodes[n].ctl, .events = POLLIN };
			who[np++] = n;
		}
	}
	for (h = 0; h < l->nhubs; h++)
		for (m = 0; m < l->hubs[h].n; m++) {
			pfd[np] = (struct pollfd){ .fd = l->hubs[h].fd[m], .events = POLLIN };
			who[np++] = -1 - (h * TOPO_MAX_MEMBERS + m);
		}

	if (poll(pfd, np, ms) < 0 && errno != EINTR) {
		lab_fail(l, "poll: %s", strerror(errno));
		return;
	}
	for (i = 0; i < np; i++) {
		if (!pfd[i].revents)
			continue;
		if (who[i] < 0) {
			h = (-1 - who[i]) / TOPO_MAX_MEMBERS;
			relay(&l->hubs[h], (-1 - who[i]) % TOPO_MAX_MEMBERS);
			continue;
		}
		n = who[i];
		r = read(l->nodes[n].ctl, l->nodes[n].in + l->nodes[n].inlen,
			 sizeof(l->nodes[n].in) - l->nodes[n].inlen);
		if (r <= 0) {
			close(l->nodes[n].ctl);
			l->nodes[n].ctl = -1;
			l->nodes[n].ready = 0;
			continue;
		}
		l->nodes[n].inlen += r;
		parse_input(l, n);
	}
	reap(l);
	if (interrupted)
		lab_fail(l, "interrupted by signal %d", (int)interrupted);
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= w;
	}
	return 0;
}

static int start_command(struct lab *l, int n, const char *cmd)
{
	struct node_rt *nr = &l->nodes[n];
	char hdr[PROTO_MAX_LINE];
	int len = snprintf(hdr, sizeof(hdr), "RUN %zu\n", strlen(cmd));

	free(nr->out);
	nr->out = NULL;
	nr->outlen = 0;
	nr->busy = 1;
	if (nr->ctl < 0 || send_all(nr->ctl, hdr, len) || send_all(nr->ctl, cmd, strlen(cmd))) {
		nr->busy = 0;
		return -1;
	}
	return 0;
}

/*
 * Runs CMD on node N; returns its status, -1 if it timed out (and was
 * killed), -2 if the node is gone or the lab failed.
 */
static int run_command(struct lab *l, int n, const char *cmd, int timeout_s)
{
	struct node_rt *nr = &l->nodes[n];
	long deadline = now_ms() + timeout_s * 1000L;

	if (start_command(l, n, cmd))
		return -2;
	while (nr->busy && !l->failure[0] && nr->ctl >= 0 && now_ms() < deadline)
		pump(l, 100);
	if (!nr->busy)
		return nr->status;
	if (l->failure[0] || nr->ctl < 0)
		return -2;
	send_all(nr->ctl, "KILL\n", 5);
	deadline = now_ms() + KILL_GRACE_MS;
	while (nr->busy && !l->failure[0] && nr->ctl >= 0 && now_ms() < deadline)
		pump(l, 100);
	if (nr->busy)
		lab_fail(l, "node %s: a command that timed out could not be killed",
			 l->t->nodes[n].name);
	return -1;
}

static void print_output(struct lab *l, const char *out)
{
	const char *p = out, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		report(l, "# %.*s\n", (int)(nl ? nl - p : (long)strlen(p)), p);
		p = nl ? nl + 1 : NULL;
	}
}

static int wait_ready(struct lab *l)
{
	long deadline = now_ms() + l->o->boot_timeout_s * 1000L;
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
		if (now_ms() > deadline) {
			lab_fail(l, "node %s did not come up within %ds (see %s.console.log)",
				 l->t->nodes[waiting].name, l->o->boot_timeout_s,
				 l->t->nodes[waiting].name);
			return -1;
		}
		pump(l, 100);
	}
}

/*
 * Every node's setup lines, in order per node and in parallel across
 * nodes; a node stops at its first failing line.
 */
static void run_setup(struct lab *l)
{
	const struct topo *t = l->t;
	long deadline = now_ms() + 300 * 1000L;
	int n, pending;

	for (;;) {
		pending = 0;
		for (n = 0; n < t->nnodes; n++) {
			struct node_rt *nr = &l->nodes[n];
			const struct topo_node *node = &t->nodes[n];

			if (nr->busy) {
				pending = 1;
				continue;
			}
			if (nr->next_setup > 0 && nr->status != 0 && !nr->setup_failed)
				nr->setup_failed = node->setup[nr->next_setup - 1].line;
			if (nr->setup_failed || nr->next_setup == node->nsetup)
				continue;
			if (start_command(l, n, node->setup[nr->next_setup].command)) {
				lab_fail(l, "node %s: control channel lost", node->name);
				return;
			}
			nr->next_setup++;
			pending = 1;
		}
		if (!pending || l->failure[0])
			return;
		if (now_ms() > deadline) {
			lab_fail(l, "setup did not finish within 300s");
			return;
		}
		pump(l, 100);
	}
}

static void shutdown_all(struct lab *l)
{
	long deadline;
	int n, alive;

	l->stopping = 1;
	for (n = 0; n < l->t->nnodes; n++)
		if (l->nodes[n].pid)
			kill(l->nodes[n].pid, SIGTERM);
	deadline = now_ms() + 3000;
	do {
		alive = 0;
		reap(l);
		for (n = 0; n < l->t->nnodes; n++)
			alive |= l->nodes[n].pid != 0;
		if (alive)
			usleep(20000);
	} while (alive && now_ms() < deadline);
	for (n = 0; n < l->t->nnodes; n++)
		if (l->nodes[n].pid) {
			kill(l->nodes[n].pid, SIGKILL);
			waitpid(l->nodes[n].pid, NULL, 0);
			l->nodes[n].pid = 0;
		}
}

/*
 * The node's serial console on this terminal, through socat, until the user
 * detaches with Ctrl-]; lan frames keep flowing meanwhile.
 */
static void attach_console(struct lab *l, const char *name)
{
	char target[4200];
	int n, status;
	pid_t pid;

	n = topo_find_node(l->t, name);
	if (n < 0) {
		printf("lab: no node '%s'\n", name);
		return;
	}
	snprintf(target, sizeof(target), "UNIX-CONNECT:%s/%s.console",
		 l->o->qemu.run_dir, name);
	printf("# console of %s; Ctrl-] detaches\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execlp("socat", "socat", "-,raw,echo=0,escape=0x1d", target, (char *)NULL);
		fprintf(stderr, "lab: socat: %s\n", strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0 && !l->failure[0])
		pump(l, 50);
	printf("\n");
}

/* "NODE: COMMAND" lines from stdin until EOF or "quit". */
static void shell(struct lab *l)
{
	char line[4096], *colon;
	int n, status;

	printf("# lab is up: type 'NODE: COMMAND', 'console NODE', 'nodes', or 'quit'\n");
	fflush(stdout);
	while (!l->failure[0]) {
		printf("lab> ");
		fflush(stdout);
		for (;;) {	/* keep relaying frames while the user types */
			struct pollfd in = { .fd = 0, .events = POLLIN };

			if (poll(&in, 1, 0) > 0 || l->failure[0])
				break;
			pump(l, 50);
		}
		if (l->failure[0] || !fgets(line, sizeof(line), stdin))
			break;
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "quit") || !strcmp(line, "exit"))
			break;
		if (!strcmp(line, "nodes")) {
			for (n = 0; n < l->t->nnodes; n++)
				printf("%s (%s), console log: %s/%s.console.log\n",
				       l->t->nodes[n].name, l->t->nodes[n].arch,
				       l->o->qemu.run_dir, l->t->nodes[n].name);
			continue;
		}
		if (!strncmp(line, "console ", 8)) {
			attach_console(l, line + 8);
			continue;
		}
		colon = strchr(line, ':');
		if (!colon) {
			if (line[0])
				printf("lab: expected NODE: COMMAND\n");
			continue;
		}
		*colon = '\0';
		n = topo_find_node(l->t, line);
		if (n < 0) {
			printf("lab: no node '%s'\n", line);
			continue;
		}
		status = run_command(l, n, colon + 1, 3600);
		fputs(l->nodes[n].out ? l->nodes[n].out : "", stdout);
		if (status)
			printf("[exit %d]\n", status);
	}
}

int lab_run(const struct topo *t, const struct run_opts *o)
{
	struct lab lab = { .t = t, .o = o };
	struct lab *l = &lab;
	int passed = 0, failed = 0, num = 0, n, i, status, rc;
	char path[4096];
	FILE *reproduce;

	l->nodes = calloc(t->nnodes, sizeof(*l->nodes));
	if (!l->nodes)
		return 2;
	for (n = 0; n < t->nnodes; n++)
		l->nodes[n].ctl = -1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);

	snprintf(path, sizeof(path), "%s/reproduce", o->qemu.run_dir);
	reproduce = fopen(path, "a");
	if (!reproduce) {
		fprintf(stderr, "lab: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (open_hubs(l)) {
		fclose(reproduce);
		return 2;
	}
	fprintf(reproduce, "# QEMU command lines, one per node\n");
	for (n = 0; n < t->nnodes; n++)
		if (spawn(l, n, reproduce)) {
			fclose(reproduce);
			shutdown_all(l);
			return 2;
		}
	fclose(reproduce);

	report(l, "KTAP version 1\n1..%d\n", t->nnodes + (o->shell ? 0 : t->ntests));
	if (wait_ready(l) == 0)
		run_setup(l);
	for (n = 0; n < t->nnodes && !l->failure[0]; n++) {
		struct node_rt *nr = &l->nodes[n];

		num++;
		if (nr->setup_failed) {
			failed++;
			report(l, "not ok %d setup of %s\n", num, t->nodes[n].name);
			report(l, "# %s:%d: setup line failed with status %d:\n", t->path,
			       nr->setup_failed, nr->status);
			print_output(l, nr->out);
		} else {
			passed++;
			report(l, "ok %d setup of %s\n", num, t->nodes[n].name);
		}
	}

	if (o->shell && !l->failure[0])
		shell(l);
	for (i = 0; i < t->ntests && !l->failure[0] && !o->shell; i++) {
		const struct topo_test *tt = &t->tests[i];

		num++;
		status = run_command(l, tt->node, tt->command, tt->timeout_s);
		if (status == -2 && l->failure[0])
			break;
		if (status == 0) {
			passed++;
			report(l, "ok %d %s\n", num, tt->description);
		} else {
			failed++;
			report(l, "not ok %d %s\n", num, tt->description);
			if (status == -1)
				report(l, "# %s:%d: timed out after %ds on %s; killed\n", t->path,
				       tt->line, tt->timeout_s, t->nodes[tt->node].name);
			else if (status == -2)
				report(l, "# %s:%d: node %s is not reachable\n", t->path, tt->line,
				       t->nodes[tt->node].name);
			else
				report(l, "# %s:%d: exit status %d on %s\n", t->path, tt->line,
				       status, t->nodes[tt->node].name);
			print_output(l, l->nodes[tt->node].out);
		}
	}

	shutdown_all(l);
	if (l->failure[0]) {
		report(l, "Bail out! %s\n", l->failure);
		fprintf(stderr, "lab: %s\n", l->failure);
		rc = 2;
	} else {
		rc = failed ? 1 : 0;
	}
	if (!o->shell)
		report(l, "%d passed, %d failed, 0 skipped\n", passed,
		       failed + (rc == 2 ? t->nnodes + t->ntests - passed - failed : 0));
	for (n = 0; n < t->nnodes; n++)
		free(l->nodes[n].out);
	free(l->nodes);
	free(l->hubs);
	return rc;
}
