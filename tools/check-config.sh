#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...
#
# Fails, naming every offender, if a symbol set by a fragment did not survive
# olddefconfig.  Kconfig drops a symbol silently when one of its dependencies
# is off (VIRTIO_NET without VIRTIO_MENU, say), and the kernel would then boot
# without a feature the tests take for granted.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 DOTCONFIG FRAGMENT..." >&2; exit 2; }
dotconfig=$1; shift

awk '
	FNR == NR {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
			have[substr($0, 1, RLENGTH - 1)] = substr($0, RLENGTH + 1)
		next
	}
	{
		sym = ""; want = ""
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
			sym = substr($0, 1, RLENGTH - 1); want = substr($0, RLENGTH + 1)
		} else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) {
			sym = $2; want = "n"
		}
		if (sym == "")
			next
		got = (sym in have) ? have[sym] : "n"
		if (want == "n" && got == "n")
			next
		if (got != want) {
			printf "%s:%d: %s=%s did not stick (the config has %s); a dependency is missing\n", \
				FILENAME, FNR, sym, want, (got == "n" ? "it unset" : sym "=" got) > "/dev/stderr"
			bad++
		}
	}
	END { exit bad ? 1 : 0 }
' "$dotconfig" "$@"
