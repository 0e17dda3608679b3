/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The launcher's run-time state, shared by the files of one job each; a
 * file calls only those below it:
 *   run.c    a whole run: start, setup, tests and their KTAP, stop (run.h)
 *   shell.c  lab shell: commands from the terminal
 *   loop.c   the event loop, and a command run through it
 *   link.c   link steps: a NIC's carrier, a wire's impairments
 *   ctl.c    the control channel to each agent
 *   guest.c  QEMU processes: start, reap, panic, stop
 *   hub.c    wires and lan hubs
 *   base.c   the helpers they all use (base.h)
 */
#ifndef LAB_INTERNAL_H
#define LAB_INTERNAL_H

#include <stdio.h>
#include <sys/types.h>
#include <sys/un.h>

#include "../proto.h"
#include "run.h"

struct node_rt {
	pid_t pid;		/* QEMU, 0 once reaped */
	int ctl;		/* control socket (non-blocking), -1 until connected */
	int connected;		/* it was: once closed, the node is lost */
	char *sendq;		/* bytes for the agent the socket did not take yet */
	size_t sendlen;
	size_t inlen;		/* bytes in in[], the last member (below) */
	int ready, busy, status;
	unsigned long seq;	/* the number of the last command sent */
	char *out;		/* the end of the command in flight's output */
	size_t outlen;
	size_t outcut;		/* bytes of it dropped from the front of out */
	int logfd;		/* its whole output up to LAB_LOG_MAX, or -1 */
	size_t logged;
	char logname[64];	/* that file, in the run folder */
	long deadline_ms;	/* when the command in flight times out */
	int killed;		/* it did, and was sent KILL */
	int next_setup;		/* setup lines sent so far */
	int setup_failed;	/* line of the failed setup command, or 0 */
	/*
	 * What the agent sent, not parsed yet.  Last, so that ASan's redzone
	 * follows it: the control-protocol fuzzer sees any overrun.
	 */
	char in[PROTO_MAX_LINE + PROTO_MAX_OUT];
};

struct hub {			/* a relayed wire: one socket per member, on our side */
	int wire;
	int fd[TOPO_MAX_MEMBERS];
	struct sockaddr_un peer[TOPO_MAX_MEMBERS];
	int n;
	struct fault fault;	/* its impairments now (link-set changes them) */
	struct fault_queue *queue;	/* n * n directions: [from * n + to] */
};

struct lab {
	const struct topo *t;
	const struct run_opts *o;
	struct node_rt *nodes;
	struct hub *hubs;
	int nhubs;
	int stopping;		/* QEMU exits are expected from now on */
	int echo;		/* lab shell: output to the terminal as it arrives */
	size_t streamed;	/* stream_output: bytes so far, and the last one */
	char last_streamed;
	char failure[1024];	/* why the lab failed, "" while it has not */
	long consoles_checked_ms;	/* when guests_check_consoles last ran */
	int failed_node;	/* whose console tells more (a panic), or -1 */
};

/*
 * A command's output is kept whole in a log in the run folder, up to
 * LAB_LOG_MAX bytes; its last LAB_TAIL_MAX bytes (at least) stay in memory
 * for the KTAP diagnostics, whatever a test prints.
 */
#define LAB_LOG_MAX	(16 << 20)
#define LAB_TAIL_MAX	(16 << 10)
/* QEMU writes each console log; a guest flooding it past this fails. */
#define LAB_CONSOLE_MAX	(64 << 20)

/* run.c */
/* Frees L; its guests must be stopped already (lab_stop does both). */
void lab_free(struct lab *l);

/* loop.c (and lab_signals, lab_command: run.h) */
/* One round of the event loop, waiting at most MS milliseconds. */
void lab_pump(struct lab *l, int ms);
/*
 * Node N's control channel closed while a command ran: fails L, naming a
 * panic if its QEMU exits within the grace time.
 */
void lab_node_lost(struct lab *l, int n);
/*
 * Node N's command in flight: a closed channel fails L, a command past its
 * deadline is killed once; 1 if it has not ended the grace time after that.
 */
int lab_command_overdue(struct lab *l, int n);

/* hub.c */
int hubs_open(struct lab *l);
void hubs_close(struct lab *l);
/* Relays every frame member FROM of H sent: at once, or into its queues. */
void hub_relay(struct hub *h, int from);
/* Sends every queued frame that is due; returns when the next one is, or -1. */
long long hubs_release(struct lab *l);
/* The hub of wire W, or NULL if W is not relayed. */
struct hub *hub_of_wire(struct lab *l, int w);

/* link.c: a link-down, link-up or link-set; 0, or -1 with the reason in WHY. */
int lab_link_step(struct lab *l, const struct topo_test *tt, char *why, size_t size);

/* ctl.c */
void ctl_connect(struct lab *l, int n);
/* Reads what node N's agent sent and parses it; the channel may close. */
void ctl_receive(struct lab *l, int n);
/*
 * Parses the messages in node N's input buffer (ctl_receive's second half,
 * and the control-protocol fuzzer's way in); garbage fails L and closes N.
 */
void ctl_parse(struct lab *l, int n);
/*
 * Queues BUF for node N's agent and writes what its socket takes now; the
 * event loop writes the rest.  -1 if the channel is gone or the agent has
 * left CTL_SENDQ_MAX bytes unread (the lab then fails).
 */
int ctl_send(struct lab *l, int n, const void *buf, size_t len);
/* Writes queued bytes; -1 if the channel is gone. */
int ctl_flush(struct lab *l, int n);
void ctl_close(struct lab *l, int n);
/*
 * Sends CMD to node N, due within TIMEOUT_S; its output also goes to
 * RUN_DIR/LOG (appended) if LOG.
 */
int ctl_start(struct lab *l, int n, const char *cmd, const char *log, int timeout_s);

/* guest.c */
int guest_spawn(struct lab *l, int n, FILE *reproduce);
void guests_reap(struct lab *l);
/* About once a second: a console log over LAB_CONSOLE_MAX fails L. */
void guests_check_consoles(struct lab *l);
void guests_stop(struct lab *l);
/* After guests_stop: a BUG, WARN, KASAN, lockdep or RCU report fails L. */
void guests_check_reports(struct lab *l);
/* Calls SHOW with each of the last MAX lines of node N's console up to its first mark. */
void guest_console_tail(struct lab *l, int n, int max,
			void (*show)(struct lab *l, const char *line));

/* shell.c */
void lab_shell(struct lab *l);

#endif
