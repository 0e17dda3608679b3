// SPDX-License-Identifier: GPL-2.0
/*
 * The lab at run time: one single-threaded poll loop that watches every
 * node's control socket, relays the frames of every lan, and reaps QEMU
 * processes, and the commands that run through it.  Nothing waits on a
 * fixed sleep: nodes are ready when their agent says READY, commands are
 * done when it says END.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "internal.h"

#define KILL_GRACE_MS	5000	/* a killed command must END within this */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

void lab_signals(void)
{
	/* No SA_RESTART: a signal ends any wait at once. */
	struct sigaction stop = { .sa_handler = on_signal };

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* One round of the event loop, waiting at most MS milliseconds. */
void lab_pump(struct lab *l, int ms)
{
	struct pollfd pfd[TOPO_MAX_NODES + TOPO_MAX_WIRES * TOPO_MAX_MEMBERS];
	int who[TOPO_MAX_NODES + TOPO_MAX_WIRES * TOPO_MAX_MEMBERS];
	int np = 0, i, h, m, n;
	long long due = hubs_release(l), now = lab_now_us(), wait_us = ms > 0 ? ms * 1000LL : 0;
	struct timespec ts;

	for (n = 0; n < l->t->nnodes; n++) {
		if (l->nodes[n].ctl < 0 && l->nodes[n].pid && !l->nodes[n].connected)
			ctl_connect(l, n);
		if (l->nodes[n].ctl >= 0) {
			pfd[np] = (struct pollfd){ .fd = l->nodes[n].ctl, .events = POLLIN |
						   (l->nodes[n].sendlen ? POLLOUT : 0) };
			who[np++] = n;
		}
	}
	for (h = 0; h < l->nhubs; h++)
		for (m = 0; m < l->hubs[h].n; m++) {
			pfd[np] = (struct pollfd){ .fd = l->hubs[h].fd[m], .events = POLLIN };
			who[np++] = -1 - (h * TOPO_MAX_MEMBERS + m);
		}

	/* A queued frame due sooner shortens the wait: delays hold to the us. */
	if (due >= 0 && due - now < wait_us)
		wait_us = due > now ? due - now : 0;
	ts.tv_sec = wait_us / 1000000;
	ts.tv_nsec = wait_us % 1000000 * 1000;
	if (ppoll(pfd, np, &ts, NULL) < 0 && errno != EINTR) {
		lab_fail(l, "poll: %s", strerror(errno));
		return;
	}
	for (i = 0; i < np; i++) {
		if (!pfd[i].revents)
			continue;
		if (who[i] < 0) {
			h = (-1 - who[i]) / TOPO_MAX_MEMBERS;
			hub_relay(&l->hubs[h], (-1 - who[i]) % TOPO_MAX_MEMBERS);
			continue;
		}
		n = who[i];
		if ((pfd[i].revents & POLLOUT) && ctl_flush(l, n))
			ctl_close(l, n);
		if (l->nodes[n].ctl >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			ctl_receive(l, n);
	}
	hubs_release(l);
	guests_reap(l);
	guests_check_consoles(l);
	if (interrupted)
		lab_fail(l, "interrupted by signal %d", (int)interrupted);
}

/*
 * Node N's control channel closed while a command ran.  A guest that
 * panics closes it before its QEMU exits: wait for that exit, so that the
 * lab fails naming the panic, not only the lost channel.
 */
void lab_node_lost(struct lab *l, int n)
{
	long deadline = lab_now_ms() + KILL_GRACE_MS;

	while (l->nodes[n].pid && !l->failure[0] && lab_now_ms() < deadline)
		lab_pump(l, 50);
	lab_fail(l, "node %s: the agent's control channel closed (see %s.console.log)",
		 l->t->nodes[n].name, l->t->nodes[n].name);
}

/*
 * Node N's command in flight, watched by lab_command and run.c's setup
 * alike: a channel that closed is a lost node; past its deadline the
 * command is killed once; 1 if it still has not ended KILL_GRACE_MS after
 * that (the caller fails the lab saying what it was), else 0.
 */
int lab_command_overdue(struct lab *l, int n)
{
	struct node_rt *nr = &l->nodes[n];
	char kill[PROTO_MAX_LINE];

	if (nr->busy && nr->ctl < 0) {
		lab_node_lost(l, n);
		return 0;
	}
	if (!nr->busy || lab_now_ms() <= nr->deadline_ms)
		return 0;
	if (nr->killed)
		return 1;
	nr->killed = 1;
	nr->deadline_ms += KILL_GRACE_MS;
	/* If it fails, the channel is closed. */
	ctl_send(l, n, kill, snprintf(kill, sizeof(kill), "KILL %lu\n", nr->seq));
	return 0;
}

int lab_command(struct lab *l, int n, const char *cmd, int timeout_s, const char *log)
{
	struct node_rt *nr = &l->nodes[n];

	if (ctl_start(l, n, cmd, log, timeout_s)) {
		lab_node_lost(l, n);
		return -2;
	}
	while (nr->busy && !l->failure[0]) {
		if (lab_command_overdue(l, n))
			lab_fail(l, "node %s: a command that timed out could not be killed",
				 l->t->nodes[n].name);
		else if (nr->busy && !l->failure[0])
			lab_pump(l, 100);
	}
	if (l->failure[0])
		return -2;
	return nr->killed ? -1 : nr->status;
}
