// SPDX-License-Identifier: GPL-2.0
/*
 * plain_test: which commands the agent runs without a shell
 * (tools/lab/plain.c), and that it runs them as sh does.  A plain command
 * splits into sh's words; any other comes back untouched, for sh -c.  Run
 * by plain_run and by `/bin/sh -c` (dash), each in a new session as the
 * agent's child is, a plain command must print the same and exit the
 * same: a missing program, a directory, a loop of links, a script without
 * #!, a signal, the environment, the session.  KTAP on stdout; unit.sh
 * builds and runs it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../tools/lab/plain.h"

static int num, failed;

/* CMD must split into the WANT words, joined by '|' ("" for not plain). */
static void check(const char *cmd, const char *want)
{
	char buf[1024], got[1100] = "", *words[MAX_PLAIN_WORDS + 1];
	int i, n;

	snprintf(buf, sizeof(buf), "%s", cmd);
	n = plain_words(buf, words);
	for (i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "|" : "",
			 words[i]);
	if (!n && strcmp(buf, cmd))
		snprintf(got, sizeof(got), "(changed to '%s')", buf);
	if (n && words[n])
		snprintf(got, sizeof(got), "(no NULL after the words)");
	printf("%sok %d '", strcmp(got, want) ? "not " : "", ++num);
	for (i = 0; cmd[i]; i++)	/* one line each: a tab or newline as \t, \n */
		printf(cmd[i] == '\t' ? "\\t" : cmd[i] == '\n' ? "\\n" : "%c", cmd[i]);
	printf("'\n");
	if (strcmp(got, want)) {
		printf("# wanted '%s', got '%s'\n", want, got);
		failed++;
	}
}

/* CMD's output (stdout and stderr, as the agent's pipe has them) and status. */
static int run(const char *cmd, int plain, char *out, size_t size)
{
	char copy[1024], *words[MAX_PLAIN_WORDS + 1];
	int fds[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		setsid();
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		snprintf(copy, sizeof(copy), "%s", cmd);
		if (plain && plain_words(copy, words))
			plain_run(words);
		if (plain)
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(fds[1]);
	while (len < size - 1 && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

static void same_as_sh(const char *cmd)
{
	char want[4096], got[4096];
	int want_rc = run(cmd, 0, want, sizeof(want)), rc = run(cmd, 1, got, sizeof(got));
	int ok = rc == want_rc && !strcmp(got, want);

	printf("%sok %d run as sh -c runs it: %s\n", ok ? "" : "not ", ++num, cmd);
	if (!ok) {
		printf("# sh -c: %d '%s'\n# plain_run: %d '%s'\n", want_rc, want, rc, got);
		failed++;
	}
}

static void file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, 0755);
}

static void compare_with_sh(void)
{
	char dir[] = "/tmp/plain_test.XXXXXX", cmd[512], loop[300], *cases[] = {
		"none", "file/below", "loop", "sub", "noshebang one two", "exit7",
		"segv", "term", "int", "pipe", "leader",
	};
	size_t i;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: no scratch folder\n");
		exit(1);
	}
	file(dir, "file", "");
	snprintf(loop, sizeof(loop), "%s/loop", dir);
	if (symlink(loop, loop))
		printf("# symlink %s failed\n", loop);
	snprintf(cmd, sizeof(cmd), "%s/sub", dir);
	mkdir(cmd, 0755);
	file(dir, "noshebang", "echo \"$0\" \"$@\"\n");
	file(dir, "exit7", "#!/bin/sh\necho out; echo err >&2; exit 7\n");
	file(dir, "segv", "#!/bin/sh\nkill -SEGV $$\n");
	file(dir, "term", "#!/bin/sh\nkill -TERM $$\n");
	file(dir, "int", "#!/bin/sh\nkill -INT $$\n");
	file(dir, "pipe", "#!/bin/sh\nkill -PIPE $$\n");
	/* exits 1 if it leads its session, where setsid() would fail */
	file(dir, "leader", "#!/bin/sh\nread -r _ _ _ _ _ sid _ </proc/$$/stat\n[ \"$sid\" != $$ ]\n");
	clearenv();
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		snprintf(cmd, sizeof(cmd), "%s/%s", dir, cases[i]);
		same_as_sh(cmd);
	}
	same_as_sh("/usr/bin/env");	/* what a program that is no shell sees */
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

int main(void)
{
	char many[1024] = "/bin/x", split[1024] = "/bin/x";
	int i;

	printf("KTAP version 1\n1..41\n");
	check("/lab/tests/l2.sh", "/lab/tests/l2.sh");
	check("/bin/ip link set eth1 up", "/bin/ip|link|set|eth1|up");
	check(" /x  a  b ", "");		/* not a path first: sh's business */
	check("/x  a  b ", "/x|a|b");
	check("/x a=b -c,d:e+f@g%h", "/x|a=b|-c,d:e+f@g%h");
	check("ip link", "");
	check("/x $HOME", "");
	check("/x 'a b'", "");
	check("/x \"a\"", "");
	check("/x a\\ b", "");
	check("/x a>b", "");
	check("/x a;b", "");
	check("/x a|b", "");
	check("/x a&", "");
	check("/x `a`", "");
	check("/x *", "");
	check("/x a?", "");
	check("/x [a]", "");
	check("/x ~", "");
	check("/x #a", "");
	check("/x (a)", "");
	check("/x {a}", "");
	check("/x !a", "");
	check("/x\ta", "");
	check("/x\na", "");
	check("", "");
	for (i = 1; i < MAX_PLAIN_WORDS; i++) {
		strcat(many, " a");
		strcat(split, "|a");
	}
	check(many, split);
	strcat(many, " a");
	check(many, "");	/* one word too many: left whole, for sh */
	check("/A_b Z_9", "/A_b|Z_9");
	compare_with_sh();
	printf("# %d passed, %d failed\n", num - failed, failed);
	return failed != 0;
}
