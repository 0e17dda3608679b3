#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reliability.sh ARCH KERNEL INITRD: a guest that panics and a guest that
# hangs must each end the run promptly with exit 2, a message naming the
# cause, and no QEMU process left behind.
set -uo pipefail

arch=$1 kernel=$2 initrd=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=$top/build/$arch/runs

qemu_left() {	# QEMU processes still using this run folder
	pgrep -f "qemu-system.*$runs/$1/" || true
}

# check NUM NAME PAYLOAD TIMEOUT EXPECTED_MESSAGE
check() {
	local num=$1 name=$2 payload=$3 timeout=$4 want=$5 err rc
	err=$("$top/tools/boot-guest.sh" -t "$timeout" "$arch" "$kernel" "$initrd" \
		"$payload" "$runs/$payload" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && grep -q "$want" <<<"$err" && [ -z "$(qemu_left "$payload")" ]; then
		echo "ok $num $name"
	else
		echo "not ok $num $name"
		echo "# exit $rc, wanted 2 and a message matching '$want'; got:"
		sed 's/^/#   /' <<<"$err"
		[ -z "$(qemu_left "$payload")" ] || echo "# QEMU still running: $(qemu_left "$payload")"
	fi
}

echo "KTAP version 1"
echo "1..2"
check 1 "a guest that panics is reported as a panic" panic 120 "guest panicked: Kernel panic"
check 2 "a guest that hangs is killed at its timeout" hang 20 "did not finish within 20s"
