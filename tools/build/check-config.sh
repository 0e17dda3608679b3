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
		sym = ""
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
			sym = substr($0, 1, RLENGTH - 1); val = substr($0, RLENGTH + 1)
		} else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) {
			sym = $2; val = "n"
		}
		if (sym == "")
			next
		# a later fragment overrides an earlier one, as in merge_config.sh
		if (!(sym in want))
			order[++n] = sym
		want[sym] = val; where[sym] = FILENAME ":" FNR
	}
	END {
		for (i = 1; i <= n; i++) {
			sym = order[i]
			got = (sym in have) ? have[sym] : "n"
			if (got == want[sym])
				continue
			printf "%s: %s=%s did not stick (the config has %s); a dependency is missing\n", \
				where[sym], sym, want[sym], (got == "n" ? "it unset" : sym "=" got) > "/dev/stderr"
			bad++
		}
		exit bad ? 1 : 0
	}
' "$dotconfig" "$@"
