/* SPDX-License-Identifier: GPL-2.0 */
/* lab dump: the parsed form of a topology, as text. */
#ifndef LAB_DUMP_H
#define LAB_DUMP_H

#include <stdio.h>

#include "topo.h"

void topo_dump(const struct topo *t, FILE *f);

#endif
