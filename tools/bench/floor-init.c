// SPDX-License-Identifier: GPL-2.0
/*
 * floor-init: the least a guest can run as /init, for make bench-boot's
 * floor: one line on the console and exit (the kernel then panics, and
 * panic=-1 with -no-reboot ends QEMU).  The time to this line is what the
 * kernel alone costs; the lab guest's first line is measured against it.
 */
#include <unistd.h>

int main(void)
{
	static const char line[] = "floor: init ran\n";

	return write(1, line, sizeof(line) - 1) < 0;
}
