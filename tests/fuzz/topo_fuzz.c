// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the topology parser: any input must parse or be
 * rejected with messages, never crash, hang or leak (run under ASan and
 * UBSan by `make fuzz`).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/lab/host/topo.h"

static void shell_lines(const struct topo *t, const uint8_t *data, size_t size, FILE *err)
{
	char *copy = strndup((const char *)data, size), *line, *save = NULL;
	struct topo_test step;

	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!topo_parse_step(t, line, &step, err))
			free(step.command);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topo t;
	FILE *in, *err;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	err = fopen("/dev/null", "w");
	if (in && err) {
		/* Every line also as typed at lab shell's prompt (link steps). */
		if (!topo_parse_stream(&t, in, "fuzz.topo", "x86_64", "arm64 x86_64", err))
			shell_lines(&t, data, size, err);
		topo_free(&t);
	}
	if (in)
		fclose(in);
	if (err)
		fclose(err);
	return 0;
}
