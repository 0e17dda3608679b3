/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_PLAIN_H
#define LAB_PLAIN_H

#define MAX_PLAIN_WORDS	64

int plain_words(char *cmd, char *words[MAX_PLAIN_WORDS + 1]);

/*
 * Does what `sh -c` does with the plain command WORDS (from plain_words),
 * and exits as sh would: PWD exported, the program run in a child (not
 * the leader of this process's group or session, as under sh), its exit
 * status, or 128 + the signal and sh's line naming it, or sh's words and
 * status for a program it cannot exec.  Never returns.
 */
void plain_run(char *words[MAX_PLAIN_WORDS + 1]) __attribute__((noreturn));

#endif
