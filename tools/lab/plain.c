// SPDX-License-Identifier: GPL-2.0
/*
 * Commands the agent may run without a shell.  Under TCG an exec of a
 * dynamically linked program is costly (the boot's first dash 20-30 ms,
 * each later one a few), and `sh -c /lab/tests/x.sh` pays two: sh, then
 * the script's own #!/bin/sh.
 */
#include <string.h>

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
