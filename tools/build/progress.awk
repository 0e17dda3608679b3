#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Turns kbuild's "  CC      path" lines into a progress count, one line per
# 200 compiled files (rewritten in place with TTY=1), and passes everything
# else (warnings, errors) through untouched.  Usage:
#   make ... | awk -v label="KERNEL  x86_64" -v tty=0|1 -f tools/build/progress.awk
/^  [A-Z0-9_]+ +[^ ]/ || /^Kernel: .* is ready/ {
	if ($1 == "CC" || $1 == "AS")
		n++
	if (n && n % 200 == 0 && n != last) {
		last = n
		if (tty)
			printf "\r  %s: %d files compiled", label, n
		else
			printf "  %s: %d files compiled\n", label, n
		fflush()
	}
	next
}
{ if (tty && last) printf "\n"; print; fflush(); if (tty) last = 0 }
END { if (tty && last) printf "\r  %s: %d files compiled\n", label, n }
