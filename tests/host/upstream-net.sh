#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once, after the builds
#
# upstream-net.sh [ARCH...]: the kernel's own network selftests in one
# guest per arch and key state, in parallel (one core each), on the
# selftests kernel (make NETSELFTESTS=1: configs/selftests.config), each
# running tests/guest/upstream-net.sh.  Prints one KTAP document
# (tests/upstream/merge): every guest's results, renumbered, the arch and
# key state in each description; a guest that died or ran out of time
# fails a test of its own.  No closing line: make upstream-net adds it
# (tools/ktap/close.sh), make check counts the suite with the others.
#
# UPSTREAM_KEY=off|on|both|split (default split): the state of the
#   series' static key, as tests/guest/upstream-net.sh takes it; both: a
#   guest with it off and one with it on; split: the arches take turns,
#   the first off, the second on, and so on (make check: both states in
#   one run, one guest an arch), both if one arch.
# UPSTREAM_LIST=NAME[,NAME]... (default check): the lists
#   tests/upstream/NAME.list, one after the other: check (what make check
#   runs), more (the rest that runs here; make upstream-net runs both).
# UPSTREAM_BASELINE=0|1|only (default 0): 1: the same lists also on the
#   kernel built without the series (the tree's pristine commit, the same
#   fragments), with the key off, and the diff of tests/upstream/merge
#   --baseline; only: that kernel alone, its own results (UPSTREAM_KEY
#   then says nothing): the baseline, or a flaky test of it, again without
#   the hours of the series' runs.
# UPSTREAM_SECONDS (default 1200): each guest's time for its tests (lab
#   boot's -T is a minute more); check.list takes about 12 minutes.
# UPSTREAM_TEST_SECONDS (default 300): a test's time at most (the settings
#   file's 1500 s, capped).
# UPSTREAM_TESTS=REGEX: only the lists' lines this extended regular
#   expression matches (make upstream-net TESTS=).
# UPSTREAM_SHARDS=N (default 1): each run's tests shared by N guests so
#   that they take about as long each, by the arch's tests' last times
#   (tests/upstream/split; make upstream-net SHARDS=, its default the
#   cores): a run's wall clock divided by N where there are the cores.
#   tests/upstream/join makes the shards one run again for merge.
# UPSTREAM_MEM (default 1024): each guest's memory in MiB.  The labs' 256
#   is too little: fib_nexthops.sh's ip, a flood and tmpfs /tmp met the
#   OOM killer there, and the test hung past its time.
#
# Exit: 0 all passed, 1 a test failed, 2 a build failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
# shellcheck source=tools/build/arch.sh
. tools/build/arch.sh
# shellcheck source=tests/lib/ktap.sh
. tests/lib/ktap.sh
prog=upstream-net
die() { echo "$prog: $*" >&2; exit 2; }

arches=${*:-$(arch_defaults)}
key=${UPSTREAM_KEY:-split}
list=${UPSTREAM_LIST:-check}
baseline=${UPSTREAM_BASELINE:-0}
seconds=${UPSTREAM_SECONDS:-1200}
cap=${UPSTREAM_TEST_SECONDS:-300}
only=${UPSTREAM_TESTS:-}
shards=${UPSTREAM_SHARDS:-1}
mem=${UPSTREAM_MEM:-1024}
accel=${ACCEL:-tcg}
case $key in off | on | both | split) ;; *) die "UPSTREAM_KEY=$key: off, on, both or split" ;; esac
case $baseline in 0 | 1 | only) ;; *) die "UPSTREAM_BASELINE=$baseline: 0, 1 or only" ;; esac
[[ $list =~ ^[a-z0-9_-]+(,[a-z0-9_-]+)*$ ]] || die "UPSTREAM_LIST=$list: NAME[,NAME]..."
for l in ${list//,/ }; do
	[ -r "tests/upstream/$l.list" ] || die "UPSTREAM_LIST=$list: no tests/upstream/$l.list"
done
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt 60 ]; then
	die "UPSTREAM_SECONDS=$seconds: a number of seconds, 60 or more"
fi
[[ $cap =~ ^[1-9][0-9]*$ ]] || die "UPSTREAM_TEST_SECONDS=$cap: a number of seconds"
{ [[ $mem =~ ^[1-9][0-9]*$ ]] && [ "$mem" -ge 64 ] && [ "$mem" -le 4096 ]; } ||
	die "UPSTREAM_MEM=$mem: a number of MiB, 64 to 4096"
{ [[ $shards =~ ^[1-9][0-9]*$ ]] && [ "$shards" -le 64 ]; } ||
	die "UPSTREAM_SHARDS=$shards: a number of guests a run, 1 to 64"
# the tests to run, one a line: the lists' lines TESTS matches
run_tests=$(for l in ${list//,/ }; do sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "tests/upstream/$l.list"; done)
if [ -n "$only" ]; then
	# It reaches the guest inside single quotes of a shell command line.
	[[ $only != *"'"* ]] || die "TESTS=$only: no single quote allowed (it reaches the guest quoted)"
	[[ $only != *[[:cntrl:]]* ]] || die "TESTS: no control characters allowed"
	run_tests=$(grep -E -e "$only" <<<"$run_tests" 2>/dev/null)
	[ $? -lt 2 ] || die "TESTS=$only: not an extended regular expression"
	[ -n "$run_tests" ] || die "TESTS=$only: matches no test of the lists $list (tests/upstream/NAME.list)"
	ktap_note "TESTS=$only: $(wc -l <<<"$run_tests") tests of the lists $list"
fi
# no shard without a test
ntests=$(wc -l <<<"$run_tests")
[ "$shards" -le "$ntests" ] || shards=$ntests
for a in $arches; do
	arch_check "$a" "$prog" || exit 2
done
images=$(tests/lib/suite-images tests/guest/upstream-net.sh) || exit 2
out=build/upstream-net
mkdir -p "$out"

# The kernel without the series: a worktree of the tree's pristine commit
# (kept between runs: a fresh checkout would make kbuild rebuild it all).
baseline_src=$out/src
baseline_tree() {
	local tree=build/linux want
	want=$(git -C "$tree" rev-parse pristine) || return 1
	[ "$(git -C "$baseline_src" rev-parse HEAD 2>/dev/null)" = "$want" ] && return 0
	rm -rf "$baseline_src"
	git -C "$tree" worktree prune &&
		git -C "$tree" worktree add -q --detach "$top/$baseline_src" pristine
}

# Builds, one at a time (each uses every core), before any guest starts.
for a in $arches; do
	ktap_note "building the selftests kernel and images for $a (log: $out/build-$a.log)"
	# The image takes the kernel's list of built-in modules: the kernel
	# is built first, by a make of its own.
	{ make -s --no-print-directory ARCH="$a" NETSELFTESTS=1 kernel &&
		make -s --no-print-directory ARCH="$a" userland "$top/build/$a/netselftests.erofs" host-tools; } \
		>"$out/build-$a.log" 2>&1 ||
		{ tail -n 20 "$out/build-$a.log" >&2; die "the $a build failed (log: $out/build-$a.log)"; }
	[ "$baseline" != 0 ] || continue
	ktap_note "building the kernel without the series for $a (log: $out/build-$a-baseline.log)"
	{ baseline_tree &&
		make -s --no-print-directory ARCH="$a" NETSELFTESTS=1 KSRC="$top/$baseline_src" TREE= \
			KOBJ="$top/$out/$a-baseline" EXTRA_FRAGMENTS=configs/no-l3net.config kernel; } \
		>"$out/build-$a-baseline.log" 2>&1 ||
		{ tail -n 20 "$out/build-$a-baseline.log" >&2; die "the $a baseline build failed"; }
done

# A run: NAME ARCH KERNEL KEY, one key state a run (each state on a fresh
# boot, as upstream runs a test once a boot, and the two states of an
# arch on two cores at once), one guest a run, or UPSTREAM_SHARDS guests
# NAME-sK.  They start a core's worth at a time, the longest first by the
# last whole run's times of the same lists ($out/GUEST.LISTS.seconds; a
# guest never timed goes first), and each writes its KTAP to
# $out/GUEST.ktap.
runs=()
declare -A run_arch=() run_kernel=() run_key=()
turn=0
for a in $arches; do
	keys=$key
	if [ "$key" = split ]; then
		# make check: the arches take turns; one arch alone runs both
		keys=$([ $((turn % 2)) -eq 0 ] && echo off || echo on)
		[ "$(wc -w <<<"$arches")" -gt 1 ] || keys=both
	fi
	[ "$keys" != both ] || keys="off on"
	[ "$baseline" != only ] || keys=
	turn=$((turn + 1))
	for k in $keys; do
		r=$a
		[ "$k" = off ] || r=$a-$k
		runs+=("$r")
		run_arch[$r]=$a run_key[$r]=$k
		run_kernel[$r]=$(arch_kernel_image "$a" "build/$a/kernel-selftests")
	done
	[ "$baseline" != 0 ] || continue
	runs+=("$a-baseline")
	run_arch[$a-baseline]=$a run_key[$a-baseline]=off
	run_kernel[$a-baseline]=$(arch_kernel_image "$a" "$out/$a-baseline")
done
# The series' runs in the arches' order, for merge (each finds its arch's
# baseline itself).
series_runs=()
for r in "${runs[@]}"; do
	[ "$r" = "${run_arch[$r]}-baseline" ] || series_runs+=("$r")
done
# The guests: a run's own name, or its shards', each with its share of the
# tests: how many there are, and all or the numbers of its lines
# (tests/upstream/split, by the arch's last times: $out/ARCH.times, kept
# by tests/upstream/times as guests end).
guests=()
declare -A guest_run=() guest_lines=()
for r in "${runs[@]}"; do
	if [ "$shards" -eq 1 ]; then
		guests+=("$r")
		guest_run[$r]=$r guest_lines[$r]=all
		continue
	fi
	mapfile -t split < <(tests/upstream/split "$shards" "$out/${run_arch[$r]}.times" <<<"$run_tests")
	[ "${#split[@]}" -eq "$shards" ] || die "tests/upstream/split failed"
	for ((k = 0; k < shards; k++)); do
		[ -n "${split[k]}" ] || die "tests/upstream/split left shard $k of $shards without a test"
		guests+=("$r-s$k")
		guest_run[$r-s$k]=$r guest_lines[$r-s$k]=${split[k]}
	done
done
mapfile -t guests < <(for g in "${guests[@]}"; do
	echo "$(cat "$out/$g.$list.seconds" 2>/dev/null || echo 999999) $g"
done | sort -s -k1,1nr | cut -d' ' -f2)

# The guests' PIDs, to stop them (and their QEMU) if this script is stopped.
declare -A run_of=() run_start=()
trap 'kill "${!run_of[@]}" 2>/dev/null; wait' EXIT
trap 'exit 130' INT TERM HUP
reap() {	# waits for one guest and keeps its exit status
	local pid g rc=0
	wait -n -p pid || rc=$?
	g=${run_of[$pid]}
	echo "$rc" >"$out/$g.status"
	# a filtered run's time says nothing of a whole list's
	[ -n "$only" ] || echo $(($(date +%s) - ${run_start[$pid]})) >"$out/$g.$list.seconds"
	tests/upstream/times "$out/${run_arch[${guest_run[$g]}]}.times" "$out/$g.ktap" ||
		ktap_note "$g: its tests' times not kept" >&2
	ktap_note "$g done after $(($(date +%s) - start)) s: $(grep -cE '^(not )?ok [0-9]' "$out/$g.ktap") results, $(grep -c '^not ok [0-9]' "$out/$g.ktap") failed (lab boot exit $rc)"
	unset "run_of[$pid]" "run_start[$pid]"
}
start=$(date +%s)
for g in "${guests[@]}"; do
	while [ ${#run_of[@]} -ge "$(nproc)" ]; do
		reap
	done
	r=${guest_run[$g]}
	label=${run_arch[$r]}
	[ "$r" != "${run_arch[$r]}-baseline" ] || label="${run_arch[$r]}, no series"
	rm -f "$out/$g.status"
	shard_note=
	[ "$shards" -eq 1 ] || shard_note=", shard ${g##*-s}/$shards, $(tr , "\n" <<<"${guest_lines[$g]}" | wc -l) of $ntests tests"
	ktap_note "booting $g: lists $list, L3 key ${run_key[$r]}$shard_note (run folder build/${run_arch[$r]}/runs/upstream-net-$g)"
	# shellcheck disable=SC2086 # "-i LIST"
	build/host/lab boot -a "${run_arch[$r]}" -b "$top/build" -k "$accel" -m "$mem" -K "${run_kernel[$r]}" \
		$images -T $((seconds + 60)) -r "build/${run_arch[$r]}/runs/upstream-net-$g" \
		"/lab/tests/upstream-net.sh ${run_key[$r]} $list '$label' $seconds $cap '$only' $ntests:${guest_lines[$g]}" \
		>"$out/$g.ktap" 2>"$out/$g.err" &
	run_of[$!]=$g run_start[$!]=$(date +%s)
done
while [ ${#run_of[@]} -gt 0 ]; do
	reap
done
ktap_note "guests done in $(($(date +%s) - start)) s"
if [ "$shards" -gt 1 ]; then
	for r in "${runs[@]}"; do
		tests/upstream/join "$out" "$r" "$shards"
	done
fi

merged=$out/merged.ktap
if [ "$baseline" = only ]; then
	tests/upstream/merge "$out" "${runs[@]}" >"$merged"
elif [ "$baseline" = 1 ]; then
	tests/upstream/merge --baseline "$out" "${series_runs[@]}" >"$merged"
else
	tests/upstream/merge "$out" "${series_runs[@]}" >"$merged"
fi
cat "$merged"
ktap_note "upstream-net: $(($(date +%s) - start)) s in all (arches: $arches)"
read -r _ f _ < <(awk -f tools/ktap/count.awk "$merged")
[ "$f" -eq 0 ]
