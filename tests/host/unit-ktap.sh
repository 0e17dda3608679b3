#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of KTAP: the one shell writer (tests/lib/ktap.sh)
# against its golden files, and the counting of tools/ktap.
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

# A truncated KTAP run counts the missing tests as failed; SKIPs count apart.
test_ktap_count() {
	expect_eq "1 1 1" "$(printf '1..3\nok 1 a\nnot ok 2 b\nok 3 c # SKIP why\n' |
		awk -f "$top/tools/ktap/count.awk")" "complete run"
	expect_eq "1 2 0" "$(printf 'KTAP version 1\n1..3\nok 1 a\n  not ok 1 nested\n' |
		awk -f "$top/tools/ktap/count.awk")" "truncated run"
	expect_eq "0 1 0" "$(printf 'garbage\n' | awk -f "$top/tools/ktap/count.awk")" "no plan"
	expect_eq "2 1 0" "$(printf '1..2\nok 1 a\nok 2 b\nBail out! node a: the kernel reported a problem\n' |
		awk -f "$top/tools/ktap/count.awk")" "complete run that bailed out"
}

# The one shell KTAP writer and the closing line, against golden files:
# tests/ktap/example.sh writes every kind of line tests/lib/ktap.sh can,
# under bash (the host's scripts) and dash (the guests').
test_ktap_writer_golden() {
	local rc=0 closing
	diff -u "$top/tests/ktap/example.ktap" <(bash "$top/tests/ktap/example.sh")
	diff -u "$top/tests/ktap/example.ktap" <(dash "$top/tests/ktap/example.sh")
	closing=$("$top/tools/ktap/close.sh" "$top/tests/ktap/example.ktap") || rc=$?
	expect_eq "$(cat "$top/tests/ktap/example.close")" "$closing" "closing line"
	[ $rc -eq 1 ] || fail "ktap/close.sh exit $rc for a document with failures, wanted 1"
}

unit_header
ktap_run "ktap-count: truncated runs fail, skips count apart" test_ktap_count
ktap_run "the shell KTAP writer and closing line match tests/ktap (golden)" test_ktap_writer_golden
