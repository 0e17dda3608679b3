#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: per arch
#
# lab-reliability.sh ARCH: the launcher under failure: a guest that panics,
# a test that hangs, a signal mid-run, two labs at once.  Each ends with no
# QEMU process of its run left.
set -uo pipefail

arch=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
KTAP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-rel.XXXXXX")
export KTAP_TMP
trap 'rm -rf "$KTAP_TMP"' EXIT
. "$top/tests/lib/ktap.sh"

lab=$top/build/host/lab
topos=$top/tests/topo-reliability
runs=$top/build/runs/reliability-$arch

qemu_of() {	# QEMU processes of one run folder
	pgrep -f "qemu-system.*$1/" || true
}

# lab_run NAME TOPO [ARGS...]: run into $runs/NAME, output in $runs/NAME.out
lab_run() {
	local name=$1 topo=$2
	shift 2
	rm -rf "${runs:?}/$name"
	mkdir -p "$runs"
	"$lab" run -a "$arch" -b "$top/build" -r "$runs/$name" "$@" "$topos/$topo" \
		>"$runs/$name.out" 2>&1
}

test_panic() {
	local rc=0 start=$SECONDS
	lab_run panic panic.topo || rc=$?
	cat "$runs/panic.out"
	expect_eq 2 $rc "exit status"
	grep -q "lab: node a panicked: Kernel panic" "$runs/panic.out"
	expect_eq "" "$(qemu_of "$runs/panic")" "QEMU left running"
	echo "stopped after $((SECONDS - start))s"
}

# A guest closes its control port before its QEMU exits: the panic, not
# the lost channel, must be what the lab reports, before any later test.
test_panic_mid_test() {
	local rc=0
	lab_run panic-mid-test panic-mid-test.topo || rc=$?
	cat "$runs/panic-mid-test.out"
	expect_eq 2 $rc "exit status"
	grep -q "^ok 3 runs first" "$runs/panic-mid-test.out" || fail "the first test did not pass"
	grep -q "^Bail out! node a panicked: Kernel panic" "$runs/panic-mid-test.out" ||
		fail "the panic is not the reason given"
	! grep -q "never runs\|not reachable" "$runs/panic-mid-test.out" ||
		fail "a later test ran, or the node was called unreachable"
	grep -qx "3 passed, 2 failed, 0 skipped" "$runs/panic-mid-test.out" || fail "closing line"
	expect_eq "" "$(qemu_of "$runs/panic-mid-test")" "QEMU left running"
}

test_hang() {
	local rc=0
	lab_run hang hang.topo || rc=$?
	cat "$runs/hang.out"
	expect_eq 1 $rc "exit status"
	grep -q "^not ok 2 hangs" "$runs/hang.out"
	grep -q "timed out after 3s on a; killed" "$runs/hang.out"
	grep -q "^ok 3 runs after it" "$runs/hang.out"
	expect_eq "" "$(qemu_of "$runs/hang")" "QEMU left running"
}

test_setup_line_fails() {
	local rc=0
	lab_run setup setup-fails.topo || rc=$?
	cat "$runs/setup.out"
	expect_eq 1 $rc "exit status"
	grep -q "^not ok 1 setup of a" "$runs/setup.out"
	grep -q "setup-fails.topo:8: setup line failed with status 1" "$runs/setup.out"
	grep -q "^ok 2 later setup lines were skipped" "$runs/setup.out"
}

test_setup_line_hangs() {
	local rc=0
	lab_run setup-hangs setup-hangs.topo || rc=$?
	cat "$runs/setup-hangs.out"
	expect_eq 1 $rc "exit status"
	grep -q "^not ok 1 setup of a" "$runs/setup-hangs.out" || fail "setup of a did not fail"
	grep -q "setup-hangs.topo:8: setup line timed out after 3s; killed" "$runs/setup-hangs.out" ||
		fail "file, line and timeout not named"
	grep -q "^ok 2 setup of b" "$runs/setup-hangs.out" || fail "setup of b"
	grep -q "^ok 3 later setup lines were skipped" "$runs/setup-hangs.out" || fail "a later line ran"
	grep -q "^ok 4 b is set up" "$runs/setup-hangs.out" || fail "the tests did not go on"
}

# With -c every NIC leaves a pcap that holds the wire's frames.
test_capture() {
	local rc=0 f magic
	lab_run capture pair.topo -c || rc=$?
	cat "$runs/capture.out"
	expect_eq 0 $rc "exit status"
	for f in a-eth1 b-eth1; do
		[ -s "$runs/capture/$f.pcap" ] || fail "no $f.pcap"
		magic=$(od -An -tx4 -N4 "$runs/capture/$f.pcap" | tr -d ' ')
		expect_eq a1b2c3d4 "$magic" "pcap magic of $f.pcap"
		# header (24) + at least the four ICMP echo frames (16 + 98 each)
		[ "$(stat -c %s "$runs/capture/$f.pcap")" -ge $((24 + 4 * 114)) ] ||
			fail "$f.pcap holds fewer frames than the pings sent"
	done
}

# signal SIG: sent once the slow test runs; every QEMU must be gone
signal_mid_run() {
	local sig=$1 pid rc=0 i=0
	rm -rf "${runs:?}/sig$sig"
	mkdir -p "$runs"
	"$lab" run -a "$arch" -b "$top/build" -r "$runs/sig$sig" \
		"$topos/slow.topo" >"$runs/sig$sig.out" 2>&1 &
	pid=$!
	until grep -q "^ok 3 ready" "$runs/sig$sig.out" 2>/dev/null; do
		[ $i -lt 1200 ] || { kill -KILL $pid; fail "lab never reached its slow test"; }
		kill -0 $pid 2>/dev/null || { cat "$runs/sig$sig.out"; fail "lab ended early"; }
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$(qemu_of "$runs/sig$sig")" ] || fail "no QEMU running before the signal"
	kill -"$sig" $pid
	wait $pid || rc=$?
	cat "$runs/sig$sig.out"
	expect_eq 2 $rc "exit status after SIG$sig"
	grep -q "interrupted by signal" "$runs/sig$sig.out"
	expect_eq "" "$(qemu_of "$runs/sig$sig")" "QEMU left running after SIG$sig"
}

test_sigint() { signal_mid_run INT; }
test_sigterm() { signal_mid_run TERM; }

test_two_labs() {
	local rc1=0 rc2=0 p1 p2
	lab_run twin1 pair.topo &
	p1=$!
	lab_run twin2 pair.topo &
	p2=$!
	wait $p1 || rc1=$?
	wait $p2 || rc2=$?
	cat "$runs/twin1.out" "$runs/twin2.out"
	expect_eq 0 $rc1 "first lab's exit status"
	expect_eq 0 $rc2 "second lab's exit status"
}

ktap_header 9
ktap_run "a guest that panics stops the lab, named, exit 2" test_panic
ktap_run "a panic mid-test is named as a panic; no later test runs" test_panic_mid_test
ktap_run "a hanging test is killed at its timeout, the rest run" test_hang
ktap_run "SIGINT mid-run: exit 2, no QEMU left" test_sigint
ktap_run "SIGTERM mid-run: exit 2, no QEMU left" test_sigterm
ktap_run "two labs at once on one machine both pass" test_two_labs
ktap_run "a failing setup line is a failed test naming node and line" test_setup_line_fails
ktap_run "a hanging setup line is killed at its timeout=, named" test_setup_line_hangs
ktap_run "capture: a pcap per NIC with the wire's frames" test_capture
