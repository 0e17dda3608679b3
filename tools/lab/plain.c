// SPDX-License-Identifier: GPL-2.0
/*
 * Commands the agent may run without a shell.  Under TCG an exec of a
 * dynamically linked program is costly (the boot's first dash 20-30 ms,
 * each later one a few), and `sh -c /lab/tests/x.sh` pays two: sh, then
 * the script's own #!/bin/sh.  What sh would do with such a command is
 * done here as dash does it, down to its messages (tests/host/plain_test.c
 * compares the two).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plain.h"

/*
 * Splits CMD in place into WORDS, NULL-terminated, if it is plain: an
 * absolute path, then words of letters, digits and _./,:+@%=- only,
 * split at spaces.  In such a command sh expands, quotes and redirects
 * nothing, and runs the path itself, so exec'ing the words runs what
 * `sh -c CMD` would.  Returns the word count; 0, CMD as it was, if it is
 * not plain.
 */
int plain_words(char *cmd, char *words[MAX_PLAIN_WORDS + 1])
{
	static const char word_chars[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:+@%=-";
	char *p, *save;
	int n = 0;

	if (cmd[0] != '/')
		return 0;
	for (p = cmd; *p; p++) {
		if (*p == ' ')
			continue;
		if (!strchr(word_chars, *p))
			return 0;
		if (p == cmd || p[-1] == ' ')
			n++;
	}
	if (n > MAX_PLAIN_WORDS)
		return 0;
	n = 0;
	for (p = strtok_r(cmd, " ", &save); p; p = strtok_r(NULL, " ", &save))
		words[n++] = p;
	words[n] = NULL;
	return n;
}

/* dash 0.5.12's status and words for a program it cannot exec. */
static int cannot_exec(const char *path, int err)
{
	int missing = err == ENOENT || err == ENOTDIR;

	fprintf(stderr, "sh: 1: %s: %s\n", path, missing ? "not found" : strerror(err));
	return missing || err == ELOOP || err == ENAMETOOLONG ? 127 : 126;
}

void plain_run(char *words[MAX_PLAIN_WORDS + 1])
{
	char cwd[PATH_MAX], *script[MAX_PLAIN_WORDS + 2] = { "sh" };
	int status, err, i;
	pid_t pid;

	/* sh exports PWD */
	if (getcwd(cwd, sizeof(cwd)))
		setenv("PWD", cwd, 1);
	pid = fork();
	if (pid < 0) {
		perror("sh: fork");
		_exit(2);
	}
	if (!pid) {
		execv(words[0], words);
		err = errno;
		if (err == ENOEXEC) {
			/* no #!: sh runs the file as its script, as sh does */
			for (i = 0; words[i]; i++)
				script[i + 1] = words[i];
			script[i + 1] = NULL;
			execv("/bin/sh", script);
		}
		_exit(cannot_exec(words[0], err));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			_exit(2);
	if (!WIFSIGNALED(status))
		_exit(WEXITSTATUS(status));
	/* sh's line for a command a signal ended, but for SIGINT and SIGPIPE */
	if (WTERMSIG(status) != SIGINT && WTERMSIG(status) != SIGPIPE)
		fprintf(stderr, "%s%s\n", strsignal(WTERMSIG(status)),
			WCOREDUMP(status) ? " (core dumped)" : "");
	_exit(128 + WTERMSIG(status));
}
