// SPDX-License-Identifier: GPL-2.0
/* lab shell: commands from the terminal while the lab stays up. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

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
		lab_pump(l, 50);
	printf("\n");
}

/* link-down, link-up, link-set: as in a topology file, checked the same way. */
static void run_link_line(struct lab *l, const char *line)
{
	struct topo_test step;
	char why[512];

	if (topo_parse_step(l->t, line, &step, stdout))
		return;
	if (lab_link_step(l, &step, why, sizeof(why)))
		printf("lab: %s\n", why);
	free(step.command);
}

/* One line typed at the prompt: a lab command or NODE: COMMAND. */
static void run_line(struct lab *l, char *line)
{
	char *colon;
	int n, status;

	if (!strcmp(line, "nodes")) {
		for (n = 0; n < l->t->nnodes; n++)
			printf("%s (%s), console log: %s/%s.console.log\n",
			       l->t->nodes[n].name, l->t->nodes[n].arch,
			       l->o->qemu.run_dir, l->t->nodes[n].name);
		return;
	}
	if (!strncmp(line, "console ", 8)) {
		attach_console(l, line + 8);
		return;
	}
	if (!strncmp(line, "link-", 5)) {
		run_link_line(l, line);
		return;
	}
	colon = strchr(line, ':');
	if (!colon) {
		if (line[0])
			printf("lab: expected NODE: COMMAND\n");
		return;
	}
	*colon = '\0';
	n = topo_find_node(l->t, line);
	if (n < 0) {
		printf("lab: no node '%s'\n", line);
		return;
	}
	l->echo = 1;
	status = lab_command(l, n, colon + 1, 3600, NULL);
	l->echo = 0;
	if (status)
		printf("[exit %d]\n", status);
}

/*
 * The next line from stdin into LINE (SIZE bytes with the NUL), relaying
 * frames meanwhile and never blocking in a read: 1, or 0 at end of input
 * or when the lab failed.  A longer line is refused whole, not split.
 */
static int read_line(struct lab *l, char *line, size_t size, size_t *have)
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	const char *refused = NULL;	/* why the line being read is refused */
	char *nl;
	ssize_t r;

	for (;;) {
		nl = memchr(line, '\n', *have);
		if (nl) {
			*nl = '\0';
			if (!refused && memchr(line, '\0', nl - line))
				refused = "a line with a NUL byte";
			if (!refused)
				return 1;
			printf("lab: %s; ignored\nlab> ", refused);
			fflush(stdout);
			*have -= nl + 1 - line;
			memmove(line, nl + 1, *have);
			refused = NULL;
			continue;
		}
		if (*have == size - 1) {	/* no newline in a full buffer */
			refused = "a line longer than the 4 KiB a command may have here";
			*have = 0;
		}
		if (l->failure[0])
			return 0;
		if (poll(&in, 1, 0) <= 0) {
			lab_pump(l, 50);
			continue;
		}
		r = read(0, line + *have, size - 1 - *have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {		/* end of input: a last line without newline counts */
			line[*have] = '\0';
			if (!*have || refused || memchr(line, '\0', *have))
				return 0;
			*have = 0;
			return 1;
		}
		*have += r;
	}
}

/* "NODE: COMMAND" lines from stdin until EOF or "quit". */
void lab_shell(struct lab *l)
{
	char line[4096];
	size_t have = 0, len;

	printf("# lab is up: type 'NODE: COMMAND', 'console NODE', 'nodes',\n"
	       "# 'link-down|link-up NODE:IFACE', 'link-set NODE:IFACE KEY=VALUE...', or 'quit'\n");
	fflush(stdout);
	while (!l->failure[0]) {
		printf("lab> ");
		fflush(stdout);
		if (!read_line(l, line, sizeof(line), &have))
			break;
		len = strlen(line) + 1;
		if (!strcmp(line, "quit") || !strcmp(line, "exit"))
			break;
		run_line(l, line);
		/* What followed the line's newline is the next line's start. */
		if (have >= len) {
			have -= len;
			memmove(line, line + len, have);
		}
	}
}
