#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: per arch
#
# reliability.sh ARCH: a one-guest run (lab boot) whose guest panics, one
# whose command hangs, and one whose kernel reports a bug on its console
# must each end promptly with exit 2, a message naming the cause, and no
# QEMU process left behind.
set -uo pipefail

arch=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
runs=$top/build/$arch/runs

qemu_left() {	# QEMU processes still using this run folder
	pgrep -f "qemu-system.*$runs/$1/" || true
}

# check NAME RUN TIMEOUT EXPECTED_MESSAGE COMMAND
check() {
	local name=$1 payload=$2 timeout=$3 want=$4 command=$5 err rc
	rm -rf "${runs:?}/$payload"
	err=$("$top/build/host/lab" boot -a "$arch" -b "$top/build" -T "$timeout" \
		-r "$runs/$payload" "$command" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && grep -q "$want" <<<"$err" && [ -z "$(qemu_left "$payload")" ]; then
		ktap_result ok "$name"
	else
		ktap_result fail "$name"
		{
			echo "exit $rc, wanted 2 and a message matching '$want'; got:"
			mapfile -t lines <<<"$err"
			printf '  %s\n' "${lines[@]}"
			[ -z "$(qemu_left "$payload")" ] || echo "QEMU still running: $(qemu_left "$payload")"
		} | ktap_diag
	fi
}

ktap_header 3
check "a guest that panics is reported as a panic" panic 120 \
	"node guest panicked: Kernel panic" /lab/run/panic
check "a guest that hangs is killed at its timeout" hang 20 \
	"did not finish within 20s on guest; killed" /lab/run/hang
# The launcher cannot tell this line from the kernel's own, which is the
# point: KERN_ALERT reaches even a quiet console.
check "a kernel report on the console fails the run" report 60 \
	"node guest: the kernel reported a problem: BUG: netns-lab reliability check" \
	"echo '<1>BUG: netns-lab reliability check' >/dev/kmsg"
