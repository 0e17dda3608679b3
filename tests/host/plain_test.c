// SPDX-License-Identifier: GPL-2.0
/*
 * plain_test: which commands the agent runs without a shell
 * (tools/lab/plain.c).  A plain command splits into sh's words; any other
 * comes back untouched, for sh -c.  KTAP on stdout; unit.sh builds and
 * runs it.
 */
#include <stdio.h>
#include <string.h>

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
	printf("%sok %d '%s'\n", strcmp(got, want) ? "not " : "", ++num, cmd);
	if (strcmp(got, want)) {
		printf("# wanted '%s', got '%s'\n", want, got);
		failed++;
	}
}

int main(void)
{
	char many[1024] = "/bin/x", split[1024] = "/bin/x";
	int i;

	printf("KTAP version 1\n1..28\n");
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
	printf("# %d passed, %d failed\n", num - failed, failed);
	return failed != 0;
}
