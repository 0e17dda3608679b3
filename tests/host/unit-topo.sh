#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of the topology files: lint's errors (golden files
# and odd inputs), what it must still accept, and what the launcher makes of
# the shipped topologies (lab argv, lab boot -n and lab dump, golden); an
# arch is one file.
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

# Every file in tests/topo-errors is rejected with exactly the errors in
# its .err file (all of them, sorted by line), exit status 2.
test_topology_golden_errors() {
	local f got rc bad=0
	for f in "$top"/tests/topo-errors/*.topo; do
		rc=0
		got=$(cd "$top/tests/topo-errors" && "$lab" lint "$(basename "$f")" 2>&1) || rc=$?
		if [ $rc -ne 2 ]; then
			echo "$(basename "$f"): exit $rc, expected 2"
			bad=1
		fi
		if [ "$got" != "$(cat "${f%.topo}.err")" ]; then
			echo "$(basename "$f"): errors differ from $(basename "${f%.topo}.err"):"
			diff <(echo "$got") "${f%.topo}.err" || true
			bad=1
		fi
	done
	[ $bad -eq 0 ]
}

# A file that does not exist is named; make stops before building anything.
test_topology_missing_file() {
	local err rc=0
	err=$("$lab" lint /nonexistent/x.topo 2>&1) || rc=$?
	expect_eq 2 $rc "lab lint exit status"
	expect_eq "/nonexistent/x.topo: cannot open: No such file or directory" "$err" "message"
	rc=0
	err=$(make -s -C "$top" topo=tests/topo-errors/names.topo run 2>&1) || rc=$?
	expect_eq 2 $rc "make run exit status for a bad file"
	grep -q "names.topo:3: duplicate node 'a'" <<<"$err"
	! grep -q "KERNEL\|lab: run folder" <<<"$err" || fail "make built or booted: $err"
}

# Every shipped topology is valid.
test_shipped_topologies_lint() {
	"$lab" lint "$top"/topo/*.topo
}

# `lab argv` prints, for every shipped topology and every arch (each
# arch/ARCH.conf), exactly the QEMU command lines in
# tests/lab-argv/NAME.ARCH.argv; no golden file is left without its topology.
test_lab_argv_golden() {
	local f a name golden compared=0 bad=0
	for f in "$top"/topo/*.topo; do
		name=$(basename "$f" .topo)
		for a in $(arch_all); do
			compared=$((compared + 1))
			golden=$top/tests/lab-argv/$name.$a.argv
			if [ ! -f "$golden" ]; then
				echo "$name.$a.argv missing: make golden writes it"
				bad=1
			elif ! diff -u "$golden" <(cd "$top" && "$lab" argv -a "$a" "topo/$name.topo" | host_khz); then
				echo "lab argv -a $a topo/$name.topo differs from tests/lab-argv/$name.$a.argv (make golden after a deliberate change)"
				bad=1
			fi
		done
	done
	for golden in "$top"/tests/lab-argv/*.argv; do
		name=$(basename "$golden" .argv)
		[ -f "$top/topo/${name%.*}.topo" ] || { echo "$(basename "$golden"): no topo/${name%.*}.topo"; bad=1; }
	done
	# lab boot -n: the one-guest suites' guest, per arch, in boot/ARCH.argv
	for a in $(arch_all); do
		compared=$((compared + 1))
		golden=$top/tests/lab-argv/boot/$a.argv
		if ! diff -u "$golden" <(cd "$top" && "$lab" boot -n -a "$a" -i kselftests /lab/tests/l2.sh | host_khz); then
			echo "lab boot -n -a $a -i kselftests differs from tests/lab-argv/boot/$a.argv (make golden after a deliberate change)"
			bad=1
		fi
	done
	[ $compared -gt 0 ] || fail "no topology and arch to compare"
	echo "compared $compared golden files"
	[ $bad -eq 0 ]
}

# `lab dump -a x86_64` of every shipped topology is tests/lab-dump/NAME.dump:
# a change in what the parser understands shows up as a diff.
test_lab_dump_golden() {
	local f name bad=0 compared=0
	for f in "$top"/topo/*.topo; do
		name=$(basename "$f" .topo)
		compared=$((compared + 1))
		if ! diff -u "$top/tests/lab-dump/$name.dump" <("$lab" dump -a x86_64 "$f"); then
			echo "lab dump topo/$name.topo differs from tests/lab-dump/$name.dump (make golden after a deliberate change)"
			bad=1
		fi
	done
	for f in "$top"/tests/lab-dump/*.dump; do
		name=$(basename "$f" .dump)
		[ -f "$top/topo/$name.topo" ] || { echo "$name.dump: no topo/$name.topo"; bad=1; }
	done
	[ $compared -gt 0 ] || fail "no topology to compare"
	[ $bad -eq 0 ]
}

# An arch is one file: with arch/toy.conf next to the others, the launcher
# knows the arch, boots it with that file's QEMU, machine and command
# line, and names it among the known ones; without it, toy is refused.
test_arch_is_one_file() {
	local d out rc known
	d=$(scratch)
	known=$(arch_all)
	mkdir -p "$d/arch" "$d/configs"
	cp "$top"/arch/*.conf "$d/arch/"
	cp "$top/configs/common.cmdline" "$d/configs/"
	printf '%s\n' qemu=qemu-system-toy machine=toyboard kernel_image=Image \
		cross_compile=toy-linux-gnu- cmdline=console=ttyTOY0 >"$d/arch/toy.conf"
	printf 'node a arch=toy\nnode b\nlink a:eth1 b:eth1\n' >"$d/toy.topo"
	out=$(LAB_TOP=$d "$lab" argv "$d/toy.topo") || fail "lab argv with arch/toy.conf: exit $?"
	expect_eq "qemu-system-toy" "$(sed -n 2p <<<"$out" | cut -d' ' -f1)" "QEMU of node a"
	grep -q -- "-M toyboard" <<<"$out" || fail "no -M toyboard: $out"
	grep -q "console=ttyTOY0 root=/dev/vda ro rootfstype=erofs init=/init lab.run=agent lab.node=a" <<<"$out" || fail "toy's cmdline missing: $out"
	grep -q "^# b (x86_64)" <<<"$out" || fail "node b did not get the native default arch: $out"
	rc=0
	out=$("$lab" lint "$d/toy.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "lint exit status without arch/toy.conf"
	expect_eq "$d/toy.topo:1: unknown arch 'toy' (one of: $known)" "$out" "lint message"
	rc=0
	out=$(LAB_TOP=$d "$lab" lint -a sparc "$d/toy.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -a sparc"
	expect_eq "lab: unknown arch 'sparc' (one of: $(echo "$known toy" | tr ' ' '\n' | sort | xargs))" "$out" "-a message"
	rc=0
	out=$(LAB_TOP=$d "$lab" lint -a "arm64 x86_64" "$d/toy.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for a list given to -a"
	# A value that does not fit is an error naming file and key, not a
	# shorter command line.
	printf 'cmdline=%01100d\n' 0 >>"$d/arch/toy.conf"
	rc=0
	out=$(LAB_TOP=$d "$lab" argv "$d/toy.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for a command line too long"
	expect_eq "lab: $d/arch/toy.conf: cmdline=: the command line is longer than 1023 bytes" \
		"$out" "message for a command line too long"
	: >"$d/arch/averyveryverylongname.conf"
	rc=0
	out=$(LAB_TOP=$d "$lab" lint "$d/toy.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for an arch name too long"
	grep -q "averyveryverylongname.conf: an arch name is 1 to 15 of" <<<"$out" ||
		fail "long arch name not named: $out"
}

# A command the agent would refuse (over 64 KiB) is a lint error, so that
# no write to a guest can outgrow a socket buffer.
test_command_too_long() {
	local d rc=0 out long
	d=$(scratch)
	long=$(printf '%065537d' 0)
	printf 'node a\n    true\n    echo %s\ntest "t" a: echo %s\ntest "ok" a: true\n' \
		"$long" "$long" >"$d/long.topo"
	out=$("$lab" lint "$d/long.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status"
	expect_eq "$d/long.topo:3: command longer than 65536 bytes
$d/long.topo:4: command longer than 65536 bytes" "$out" "messages"
}

# What the stricter lint must still accept: CRLF line ends, tabs, UTF-8
# comments, names that look like keywords, 15-character names.
test_lint_accepts_valid() {
	local d f
	d=$(scratch)
	sed 's/$/\r/' "$top/topo/bridge.topo" >"$d/crlf.topo"
	printf '# r\xc3\xa9seau \xe2\x80\x94 UTF-8\nnode\tlink\tmem=128\nnode test\nnode abcdefghijklmno\n' >"$d/misc.topo"
	printf 'link\tlink:eth1 test:eth1\nlink link:eth2 abcdefghijklmno:abcdefghijklmno\n' >>"$d/misc.topo"
	printf 'test "t\xc3\xa9st"\ttimeout=5 link: true\n' >>"$d/misc.topo"
	for f in crlf misc; do
		"$lab" lint "$d/$f.topo" || fail "$f.topo refused"
	done
}

# Not a file, or a file of junk: one line, or a bounded list, at once.
test_lint_odd_files() {
	local d out rc
	d=$(scratch)
	mkfifo "$d/fifo.topo"
	for f in "$d" "$d/fifo.topo"; do
		rc=0
		out=$(timeout 10 "$lab" lint "$f" 2>&1) || rc=$?
		expect_eq "2 $f: not a regular file" "$rc $out" "lint of $(basename "$f")"
	done
	seq 100000 | sed "s/.*/junk/" >"$d/junk.topo"
	rc=0
	out=$("$lab" lint "$d/junk.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for junk"
	expect_eq 101 "$(wc -l <<<"$out")" "lines for 100000 bad lines"
	expect_eq "$d/junk.topo: 99901 more errors not shown" "$(tail -n 1 <<<"$out")" "the count of the rest"
}

unit_lab
unit_header
ktap_run "topology errors: FILE:LINE for every error (golden files)" test_topology_golden_errors
ktap_run "topology file that does not exist: named, nothing built" test_topology_missing_file
ktap_run "every shipped topology passes lint" test_shipped_topologies_lint
ktap_run "lab argv prints the QEMU lines in tests/lab-argv (golden files)" test_lab_argv_golden
ktap_run "lab dump prints the parsed topologies in tests/lab-dump (golden files)" test_lab_dump_golden
ktap_run "an arch is one file: arch/NAME.conf is all the launcher reads" test_arch_is_one_file
ktap_run "a command longer than the protocol's is a FILE:LINE error" test_command_too_long
ktap_run "lint still accepts CRLF, tabs, UTF-8 comments, keyword-like and 15-character names" test_lint_accepts_valid
ktap_run "lint refuses a directory and a FIFO at once, bounds the errors of junk" test_lint_odd_files
