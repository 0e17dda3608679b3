#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of the upstream net selftests' tools (tests/upstream):
# run-net on stand-in tests, merge, join, split and times, the lists, and
# make upstream-net's refusals.
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

# run-net, the upstream selftests' runner: a pass, a failure with its
# output, an expected skip with its reason, an unexpected skip and a hang
# each come out as they should.
test_upstream_runner() {
	local d out rc c needed
	d=$(scratch)
	mkdir "$d/net"
	printf '#!/bin/sh\nexit 0\n' >"$d/net/pass"
	printf '#!/bin/sh\necho "TEST: it  [FAIL]"\nexit 1\n' >"$d/net/fail"
	# shellcheck disable=SC2016 # the stand-in test's own $1
	printf '#!/bin/sh\n[ "$1" = -x ] && exit 4\nexit 0\n' >"$d/net/skip"
	printf '#!/bin/sh\nexec sleep 30\n' >"$d/net/hang"
	# exits 0 after a failed case; leaves a child writing after it ends
	printf '#!/bin/sh\necho "TEST: b  [FAIL]"\n(sleep 1; echo LEFTOVER) &\nexit 0\n' >"$d/net/quiet"
	printf '#!/bin/sh\nsleep 2\necho "TEST: c  [FAIL]"\nexit 124\n' >"$d/net/own124"
	# its own results, nested: a script's TEST lines, a C program's KTAP
	# (kselftest.h's unnamed "ok N # SKIP why" is named by its reason; a
	# directive is case-insensitive; a test that exits 0 may skip only
	# the cases the skips file lists)
	printf '#!/bin/sh\necho "TEST: one   [ OK ]"\necho "  TEST: two #2  [SKIP]"\necho "not ok 3 three # SKIP no cause"\necho "ok 4 # SKIP no name"\necho "ok 5 five # skip lower"\n' >"$d/net/subs"
	printf '#!/bin/sh\necho "PASS: p"\necho "SKIP: part"\nexit 0\n' >"$d/net/zeroskip"
	printf '#!/bin/sh\necho "ok 1 fine"\necho "not ok 2 broken"\n' >"$d/net/subfail"
	# a script without its x bit runs through its #! line, as upstream's runner does
	printf '#!/bin/sh -e\ntrue\n' >"$d/net/noexec"
	# "PASS: WHAT" lines (rtnetlink.sh's); an expected skip with a failed
	# case of its own is a failure, one without is a skip
	printf '#!/bin/sh\necho "PASS: a"\necho "FAIL: b"\nexit 4\n' >"$d/net/skipfail"
	printf '#!/bin/sh\necho "PASS: a"\necho "SKIP: c"\nexit 4\n' >"$d/net/skipok"
	# and only if it skips the cases listed: no other ("SKIP x: why" too)
	printf '#!/bin/sh\necho "SKIP: c"\necho "SKIP gre tests: no netns"\nexit 4\n' >"$d/net/skipmore"
	printf '#!/bin/sh\necho "TEST: t  [FAIL]"\nexit 4\n' >"$d/net/skiptest"
	# exit 0 after "FAIL: WHAT" (tcp_fastopen_backup_key.sh does)
	printf '#!/bin/sh\necho "FAIL: d"\nexit 0\n' >"$d/net/failzero"
	printf 'timeout=1500\n' >"$d/net/settings"
	chmod +x "$d/net/pass" "$d/net/fail" "$d/net/skip" "$d/net/hang" "$d/net/quiet" "$d/net/own124" "$d/net/subs" "$d/net/subfail" \
		"$d/net/skipfail" "$d/net/skipok" "$d/net/skipmore" "$d/net/skiptest" "$d/net/failzero" "$d/net/zeroskip"
	printf '# a comment\npass\nfail\nskip  -x\nskip -y\nhang\nskip -z\nquiet\nsubs\nsubfail\nnoexec\nown124\nskipfail\nskipok\nskipmore\nskiptest\nfailzero\nzeroskip\n' >"$d/list"
	printf '%s\n' 'skip	-x | no such thing here' 'skipfail | b, here | b' 'skipok | c, here | c' \
		'skipmore | c, here | c ; d' 'skiptest | t, here' 'subs | in part | two no.2; three;no name ; five' >"$d/skips"
	out=$(cd "$d" && UPSTREAM_DIR=$d/net UPSTREAM_TIMEOUT=3 "$top/tests/upstream/run-net" 3 list skips "key off" | grep -v "^# time: ")
	expect_eq "ok 3 pass (key off)
  KTAP version 1
  1..1
  not ok 1 it
not ok 4 fail (key off)
# exit status 1
# TEST: it  [FAIL]
ok 5 skip -x (key off) # SKIP no such thing here
ok 6 skip -y (key off)
not ok 7 hang (key off)
# timed out after 3s
ok 8 skip -z (key off)
  KTAP version 1
  1..1
  not ok 1 b
not ok 9 quiet (key off)
# exit status 0, but its output reports a failed case
# TEST: b  [FAIL]
  KTAP version 1
  1..5
  ok 1 one
  ok 2 two no.2 # SKIP
  ok 3 three # SKIP no cause
  ok 4 no name # SKIP no name
  ok 5 five # SKIP lower
ok 10 subs (key off)
  KTAP version 1
  1..2
  ok 1 fine
  not ok 2 broken
not ok 11 subfail (key off)
# exit status 0, but its output reports a failed case
# ok 1 fine
# not ok 2 broken
ok 12 noexec (key off)
  KTAP version 1
  1..1
  not ok 1 c
not ok 13 own124 (key off)
# exit status 124
# TEST: c  [FAIL]
  KTAP version 1
  1..2
  ok 1 a
  not ok 2 b
not ok 14 skipfail (key off)
# skipped (exit status 4), but its output reports a failed case
# PASS: a
# FAIL: b
  KTAP version 1
  1..2
  ok 1 a
  ok 2 c # SKIP
ok 15 skipok (key off) # SKIP c, here
  KTAP version 1
  1..2
  ok 1 c # SKIP
  ok 2 gre tests: no netns # SKIP
not ok 16 skipmore (key off)
# skipped, but not the cases skips lists: skipped unlisted: gre tests: no netns. listed, not skipped: d.
# SKIP: c
# SKIP gre tests: no netns
  KTAP version 1
  1..1
  not ok 1 t
not ok 17 skiptest (key off)
# skipped (exit status 4), but its output reports a failed case
# TEST: t  [FAIL]
  KTAP version 1
  1..1
  not ok 1 d
not ok 18 failzero (key off)
# exit status 0, but its output reports a failed case
# FAIL: d
  KTAP version 1
  1..2
  ok 1 p
  ok 2 part # SKIP
not ok 19 zeroskip (key off)
# exit status 0, but it skipped cases skips does not list: part
# PASS: p
# SKIP: part" "$out" "run-net's KTAP"
	printf 'skip -z\npass\npass\n' >"$d/list"
	printf '#!/bin/sh\nexit 4\n' >"$d/net/skip"
	out=$(UPSTREAM_DIR=$d/net UPSTREAM_DEADLINE=$(($(date +%s) + 14)) \
		"$top/tests/upstream/run-net" 1 "$d/list" "$d/skips" "key on" | grep -v "^# time: ")
	expect_eq "not ok 1 skip -z (key on)
# skipped, and this skip is not expected (skips)
ok 2 pass (key on)
ok 3 pass (key on)" "$out" "an unexpected skip"
	out=$(UPSTREAM_DIR=$d/net UPSTREAM_DEADLINE=$(($(date +%s) + 5)) \
		"$top/tests/upstream/run-net" 1 "$d/list" "$d/skips" "late")
	expect_eq "not ok 1 skip -z (late)
# not run: the suite's time ran out" "$(head -n 2 <<<"$out")" "past the deadline"
	# a program it needs is missing (busybox has no comm): no verdict at
	# all; one that fails: a failure, never a lenient pass
	mkdir "$d/bin"
	read -r -a needed < <(sed -n 's/^for c in \(.*\); do$/\1/p' "$top/tests/upstream/run-net")
	for c in "${needed[@]}"; do
		[ "$c" = comm ] || ln -s "$(command -v "$c")" "$d/bin/$c"
	done
	rc=0
	out=$(PATH=$d/bin UPSTREAM_DIR=$d/net "$top/tests/upstream/run-net" 1 "$d/list" "$d/skips" "x" 2>&1) || rc=$?
	expect_eq "2 run-net: comm not found" "$rc $out" "run-net without comm"
	printf '#!/bin/sh\nexit 1\n' >"$d/bin/comm"
	chmod +x "$d/bin/comm"
	printf 'skipok\n' >"$d/list"
	out=$(PATH=$d/bin UPSTREAM_DIR=$d/net "$top/tests/upstream/run-net" 1 "$d/list" "$d/skips" "x" 2>/dev/null |
		grep -E '^(not )?ok ')
	expect_eq "not ok 1 skipok (x)" "$out" "an expected skip when comm fails"
}

# merge, the upstream suite's KTAP of several guests: renumbered, a
# guest that did not finish fails once, and against the kernel without the
# series a failure is the series' or one it does not make.
test_upstream_merge() {
	local d out
	d=$(scratch)
	printf 'KTAP version 1\n1..3\nok 1 a (x86_64, key off)\n  ok 1 sub\nnot ok 2 b (x86_64, key off)\n# why b\nnot ok 3 c (x86_64, key on)\n' >"$d/x86_64.ktap"
	echo 1 >"$d/x86_64.status"
	: >"$d/x86_64.err"
	printf 'KTAP version 1\n1..3\nok 1 a (arm64, key off)\nBail out! a kernel report\n' >"$d/arm64.ktap"
	echo 2 >"$d/arm64.status"
	echo "lab: the kernel reported a problem" >"$d/arm64.err"
	out=$("$top/tests/upstream/merge" "$d" x86_64 arm64)
	expect_eq "KTAP version 1
1..5
ok 1 a (x86_64, key off)
  ok 1 sub
not ok 2 b (x86_64, key off)
# why b
not ok 3 c (x86_64, key on)
ok 4 a (arm64, key off)
# Bail out! a kernel report
not ok 5 arm64: the guest ran every test of its plan (1 of 3 results, lab boot exit 2)
# lab: the kernel reported a problem" "$out" "two guests, one cut short"
	# against the kernel without the series: b fails there the same way
	# (excused); c passes there; d fails there, but with a case more here;
	# e did not run here; f fails its case X's second time here, its
	# first time there; g fails X there too, but reported one case more
	# there (its Nth times do not say the same); a bail-out fails a guest
	# whatever its status
	printf 'KTAP version 1\n1..7\nok 1 a (x86_64, key off)\nnot ok 2 b (x86_64, key off)\n# why b\n  not ok 1 C1\n  not ok 2 C2 # SKIP no\nnot ok 3 c (x86_64, key on)\n  not ok 1 D1\n  not ok 2 D2\nnot ok 4 d (x86_64, key on)\n# exit status 1\nnot ok 5 e (x86_64, key on)\n# not run: the suite'"'"'s time ran out\n  ok 1 X\n  not ok 2 X\nnot ok 6 f (x86_64, key on)\n# exit status 1\n  not ok 1 X\nnot ok 7 g (x86_64, key on)\n# exit status 1\n' >"$d/x86_64.ktap"
	printf 'KTAP version 1\n1..4\nok 1 a (x86_64, no series)\nnot ok 2 b (x86_64, no series)\n# why b\nok 3 c (x86_64, no series)\n  not ok 1 D1\nnot ok 4 d (x86_64, no series)\n# exit status 1\nnot ok 5 e (x86_64, no series)\n# timed out after 9s\n  not ok 1 X\n  ok 2 X\nnot ok 6 f (x86_64, no series)\n# exit status 1\n  not ok 1 X\n  ok 2 Y\nnot ok 7 g (x86_64, no series)\n# exit status 1\nBail out! late\n' \
		>"$d/x86_64-baseline.ktap"
	echo 1 >"$d/x86_64-baseline.status"
	# the key on's guest of the same arch meets the same baseline
	printf 'KTAP version 1\n1..2\nok 1 idle (x86_64)\nnot ok 2 b (x86_64, key on)\n# why b\n' >"$d/x86_64-on.ktap"
	echo 1 >"$d/x86_64-on.status"
	out=$("$top/tests/upstream/merge" --baseline "$d" x86_64 x86_64-on)
	expect_eq "KTAP version 1
1..9
ok 1 a (x86_64, key off)
ok 2 b (x86_64, key off) # SKIP fails without the series too (why b)
# why b
  not ok 1 C1
  not ok 2 C2 # SKIP no
not ok 3 c (x86_64, key on)
# without the series: ok: a failure of the series
  not ok 1 D1
  not ok 2 D2
not ok 4 d (x86_64, key on)
# without the series: fail (exit status 1): a failure of the series
#   fails only with the series: D2 #1
# exit status 1
not ok 5 e (x86_64, key on)
# without the series: fail (timed out after 9s): a failure of the series
# not run: the suite's time ran out
  ok 1 X
  not ok 2 X
not ok 6 f (x86_64, key on)
# without the series: fail (exit status 1): a failure of the series
#   fails only with the series: X #2
# exit status 1
  not ok 1 X
not ok 7 g (x86_64, key on)
# without the series: fail (exit status 1): a failure of the series
# exit status 1
ok 8 idle (x86_64)
ok 9 b (x86_64, key on) # SKIP fails without the series too (why b)
# why b
# without the series, x86_64: the guest did not finish (7 of 4 results, lab boot exit 1)
# without the series, x86_64: 5 fail 2 ok
#   fails without the series: b
#   fails without the series: d
#   fails without the series: e
#   fails without the series: f
#   fails without the series: g" "$out" "against the kernel without the series"
	# a failure with no cases is the same failure whether or not a result
	# came before it (the key on's idle namespace comes first)
	printf 'KTAP version 1\n1..1\nnot ok 1 t (x86_64, no series)\n# exit status 1\n' >"$d/x86_64-baseline.ktap"
	printf 'KTAP version 1\n1..2\nok 1 idle (x86_64)\nnot ok 2 t (x86_64, key on)\n# exit status 1\n' >"$d/x86_64-on.ktap"
	out=$("$top/tests/upstream/merge" --baseline "$d" x86_64-on | sed -n 4p)
	expect_eq "ok 2 t (x86_64, key on) # SKIP fails without the series too (exit status 1)" "$out" \
		"a failure without cases, first in one run and second in the other"
}

# The upstream lists run one after the other in make upstream-net: a test
# in two of them would run twice and be compared with one baseline result.
test_upstream_lists_disjoint() {
	local dup
	dup=$(sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //; s/ $//' -e '/^$/d' \
		"$top"/tests/upstream/*.list | sort | uniq -d)
	expect_eq "" "$dup" "tests listed twice in tests/upstream/*.list"
}

# make upstream-net TESTS=, SHARDS=, BASELINE=: a bad expression or one that matches
# nothing is refused at once, before any build or guest.
test_upstream_tests_filter_refused() {
	local t out rc
	for t in "a'b|no single quote" "(|not an extended" "no-such-test|matches no test"; do
		rc=0
		out=$(UPSTREAM_TESTS=${t%%|*} UPSTREAM_LIST=check,more timeout 20 "$top/tests/host/upstream-net.sh" x86_64 2>&1) || rc=$?
		expect_eq 2 $rc "exit status for TESTS=${t%%|*}: $out"
		expect_eq 1 "$(wc -l <<<"$out")" "one line for TESTS=${t%%|*}: $out"
		[[ $out == "upstream-net: TESTS=${t%%|*}: "*"${t#*|}"* ]] || fail "TESTS=${t%%|*}: $out"
	done
	for t in 0 65 2x; do
		rc=0
		out=$(UPSTREAM_SHARDS=$t timeout 20 "$top/tests/host/upstream-net.sh" x86_64 2>&1) || rc=$?
		expect_eq "2 upstream-net: UPSTREAM_SHARDS=$t: a number of guests a run, 1 to 64" "$rc $out" \
			"SHARDS=$t refused"
	done
	for t in 2 yes; do
		rc=0
		out=$(UPSTREAM_BASELINE=$t timeout 20 "$top/tests/host/upstream-net.sh" x86_64 2>&1) || rc=$?
		expect_eq "2 upstream-net: UPSTREAM_BASELINE=$t: 0, 1 or only" "$rc $out" "BASELINE=$t refused"
	done
}

# make upstream-net SHARDS=N: the shards of a run joined back into one
# guest for merge: plans summed, the worst status, the standard errors
# named; a shard that printed no plan, or has no status, fails the run.
test_upstream_join() {
	local d out
	d=$(scratch)
	printf 'KTAP version 1\n1..2\nok 1 idle (arm64)\nok 2 a (arm64, key on)\n  1..1\n  ok 1 A\n' >"$d/arm64-on-s0.ktap"
	printf 'KTAP version 1\n1..2\nok 1 idle (arm64)\nnot ok 2 b (arm64, key on)\n# exit status 1\n' >"$d/arm64-on-s1.ktap"
	echo 0 >"$d/arm64-on-s0.status"
	echo 1 >"$d/arm64-on-s1.status"
	echo "warning" >"$d/arm64-on-s1.err"
	: >"$d/arm64-on-s0.err"
	"$top/tests/upstream/join" "$d" arm64-on 2 || fail "join exit status $?"
	expect_eq "KTAP version 1
1..4
ok 1 idle (arm64)
ok 2 a (arm64, key on)
  1..1
  ok 1 A
ok 1 idle (arm64)
not ok 2 b (arm64, key on)
# exit status 1" "$(cat "$d/arm64-on.ktap")" "two shards joined"
	expect_eq 1 "$(cat "$d/arm64-on.status")" "the worst status"
	expect_eq "shard 1/2: warning" "$(cat "$d/arm64-on.err")" "standard errors named"
	out=$("$top/tests/upstream/merge" "$d" arm64-on)
	expect_eq "KTAP version 1
1..4
ok 1 idle (arm64)
ok 2 a (arm64, key on)
  1..1
  ok 1 A
ok 3 idle (arm64)
not ok 4 b (arm64, key on)
# exit status 1" "$out" "the joined run merged"
	# a shard that died before its plan, another without a status
	printf 'KTAP version 1\n' >"$d/arm64-on-s1.ktap"
	"$top/tests/upstream/join" "$d" arm64-on 2
	out=$("$top/tests/upstream/merge" "$d" arm64-on | tail -n 2)
	expect_eq "not ok 3 arm64-on: the guest ran every test of its plan (2 of ? results, lab boot exit 1)
# shard 1/2: warning" "$out" "a shard without a plan fails the run"
	rm "$d/arm64-on-s0.status"
	"$top/tests/upstream/join" "$d" arm64-on 2
	[ ! -e "$d/arm64-on.status" ] || fail "a run with a shard without a status has a status"
}

# make upstream-net SHARDS=N: each test's last time kept from the guests'
# KTAP (a SKIP's directive, the arch and key state, a failure's output and
# nested lines left out of it), and the tests shared so that the shards take about as
# long: the longest first to the least loaded (of two as loaded, the one
# with fewer tests), a test never timed at the others' mean, each shard's
# lines in list order.  A test cut short by the suite's time keeps its
# last time.
test_upstream_split() {
	local d out
	d=$(scratch)
	printf '9\tkept\n1\ta\n' >"$d/x.times"
	{
		printf 'KTAP version 1\n1..4\nok 1 an idle namespace (x86_64)\n  ok 1 nested\n  # time: 77s\n'
		printf 'ok 2 a (x86_64, L3 key off)\n# time: 100s\nnot ok 3 b -4 (x86_64, L3 key off)\n# time: 2s\n# time: 30s\n'
		printf 'ok 4 c (x86_64, L3 key on) # SKIP no c here\n# time: 20s\n'
		# cut short by the suite's time: its last time stays
		printf 'not ok 5 kept (x86_64, L3 key off)\n# timed out after 3s\n# time: 3s\n'
	} >"$d/g.ktap"
	"$top/tests/upstream/times" "$d/x.times" "$d/g.ktap" || fail "times exit status $?"
	expect_eq "$(printf '100\ta\n30\tb -4\n20\tc\n9\tkept')" "$(cat "$d/x.times")" "times kept"
	# a 100, b 30, c 20, d and e never timed: the mean, 39.75 (the list's
	# spaces are not the name's)
	out=$(printf 'a\nb   -4\nc\nd\ne\n' | "$top/tests/upstream/split" 2 "$d/x.times")
	expect_eq "$(printf '1,3\n2,4,5')" "$out" "two shards by time"
	out=$(printf 'a\nb -4\nc\nd\ne\n' | "$top/tests/upstream/split" 3 "$d/x.times")
	expect_eq "$(printf '1\n2,4\n3,5')" "$out" "three shards by time"
	out=$(printf 'p\nq\nr\n' | "$top/tests/upstream/split" 2 "$d/none.times")
	expect_eq "$(printf '1,3\n2')" "$out" "never timed: every other line"
	printf '0\tz1\n0\tz2\n0\tz3\n' >"$d/zero.times"
	out=$(printf 'z1\nz2\nz3\n' | "$top/tests/upstream/split" 3 "$d/zero.times")
	expect_eq "$(printf '1\n2\n3')" "$out" "tests of 0 s: one a shard, none left without"
}

unit_header
ktap_run "run-net: passes, failures, expected and unexpected skips, hangs" test_upstream_runner
ktap_run "upstream merge: guests renumbered, cut short, against no series" test_upstream_merge
ktap_run "upstream lists: no test in two of them" test_upstream_lists_disjoint
ktap_run "upstream-net TESTS=, SHARDS=, BASELINE=: a bad or empty filter refused at once, one line" test_upstream_tests_filter_refused
ktap_run "upstream join: a run's shards one guest again for merge" test_upstream_join
ktap_run "upstream split: a run's shards by the tests' last times" test_upstream_split
