/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_PLAIN_H
#define LAB_PLAIN_H

#define MAX_PLAIN_WORDS	64

int plain_words(char *cmd, char *words[MAX_PLAIN_WORDS + 1]);

#endif
