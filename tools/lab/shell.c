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

/* "NODE: COMMAND" lines from stdin until EOF or "quit". */
void lab_shell(struct lab *l)
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
			lab_pump(l, 50);
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
		status = lab_command(l, n, colon + 1, 3600, NULL);
		fputs(l->nodes[n].out ? l->nodes[n].out : "", stdout);
		if (status)
			printf("[exit %d]\n", status);
	}
}
