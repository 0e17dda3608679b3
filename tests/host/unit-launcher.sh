#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of the launcher at run time, on fake guests
# (tests/host/fake-qemu): lab boot's refusals, lab help, a hostile or lost
# agent, bounded output, the wires' fault queue, link steps at lab shell's
# prompt, the run folder.
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

# lab boot refuses bad input with one line naming it, before QEMU starts.
test_lab_boot_bad_input() {
	local d err rc
	d=$(scratch)
	rc=0
	err=$("$lab" boot -a sparc -b "$d" /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -a sparc"
	expect_eq "lab: unknown arch 'sparc' (one of: $(arch_all))" \
		"$err" "message for -a sparc"
	rc=0
	err=$("$lab" boot -a x86_64 -b "$d/nobuild" -r "$d/run" /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status without a kernel"
	grep -q "^lab: $d/nobuild/x86_64/kernel/.*: no kernel image (make ARCH=x86_64 kernel)$" <<<"$err" ||
		fail "no kernel image not named: $err"
	expect_eq 1 "$(wc -l <<<"$err")" "lines of the message without a kernel"
	[ ! -e "$d/run" ] || fail "a run folder was left without a kernel"
	# a kernel but no userland image; then a payload image not built
	mkdir -p "$d/nouser/x86_64/kernel"
	: >"$d/nouser/x86_64/kernel/vmlinux"
	rc=0
	err=$("$lab" boot -a x86_64 -b "$d/nouser" -r "$d/run" /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status without a userland image"
	expect_eq "lab: $d/nouser/x86_64/userland.erofs: no guest userland (make ARCH=x86_64 userland)" \
		"$err" "message without a userland image"
	: >"$d/nouser/x86_64/userland.erofs"
	rc=0
	err=$("$lab" boot -a x86_64 -b "$d/nouser" -r "$d/run" -i nosuch /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for an image not built"
	expect_eq "lab: $d/nouser/x86_64/nosuch.erofs: no image 'nosuch' (make ARCH=x86_64 userland builds the Makefile's IMAGES)" \
		"$err" "message for an image not built"
	[ ! -e "$d/run" ] || fail "a run folder was left without an image"
	rc=0
	err=$("$lab" boot -a x86_64 -i userland /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -i userland"
	expect_eq "lab: -i: image 'userland' is every node's root already" "$err" "message for -i userland"
	rc=0
	err=$("$lab" boot -a x86_64 2>&1) || rc=$?
	expect_eq 2 $rc "exit status without a command"
	expect_eq "lab: boot: no COMMAND to run in the guest (lab help boot)" "$err" "message without a command"
	rc=0
	err=$("$lab" boot -s 9 /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -s 9"
	expect_eq "lab: -s 9: expected a number from 1 to 8" "$err" "message for -s 9"
	rc=0
	err=$("$lab" run -r "" "$top/topo/bridge.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -r ''"
	expect_eq "lab: -r: an empty run folder name" "$err" "message for -r ''"
	rc=0
	err=$("$lab" run -T 5 "$top/topo/bridge.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for lab run -T"
	expect_eq "lab: run: -s, -K, -e, -q, -T, -n and -i are options of lab boot" "$err" "message for lab run -T"
	[ -z "$(pgrep -f "qemu-system.*$d/")" ] || fail "QEMU started"
}

# `lab help` lists every verb; `lab VERB --help` and `lab help VERB` print
# that verb's usage on stdout, exit 0; an unknown verb is named, exit 2.
test_lab_help() {
	local verb all out rc
	all=$("$lab" help) || fail "lab help: exit $?"
	for verb in lint arches dump graph argv run shell boot help; do
		grep -q "lab $verb " <<<"$all" || fail "lab help does not list $verb"
		out=$("$lab" "$verb" --help) || fail "lab $verb --help: exit $?"
		expect_eq "usage: lab $verb" "$(head -n 1 <<<"$out" | cut -d' ' -f1-3)" "lab $verb --help"
		out=$("$lab" help "$verb") || fail "lab help $verb: exit $?"
		expect_eq "usage: lab $verb" "$(head -n 1 <<<"$out" | cut -d' ' -f1-3)" "lab help $verb"
	done
	"$lab" run --help | grep -q -- "-t SECONDS  boot timeout" || fail "lab run --help lists no options"
	# lab boot's COMMAND may hold --help; its options may be clustered
	"$lab" boot -cT 5 --help | grep -q "^usage: lab boot" || fail "lab boot -cT 5 --help: no usage"
	"$lab" boot -T5 -n --help | grep -q "^usage: lab boot" || fail "lab boot -T5 -n --help: no usage"
	"$lab" boot -n -a x86_64 ls --help | grep -q "^qemu-system" || fail "lab boot -n ls --help: not a COMMAND"
	rc=0
	out=$("$lab" frob x.topo 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for an unknown verb"
	expect_eq "lab: unknown verb 'frob'" "$(head -n 1 <<<"$out")" "unknown verb message"
	rc=0
	out=$("$lab" help frob 2>&1) || rc=$?
	expect_eq 2 $rc "exit status of lab help for an unknown verb"
	expect_eq "lab: help: unknown verb 'frob'" "$out" "lab help unknown verb message"
}

# Every length and status from a guest is untrusted: an agent (here
# tests/host/fake-qemu, playing a hostile guest) that sends a length the
# protocol does not allow, a bad status, a line with no end or an unknown
# header fails its node, named, exit 2; nothing is copied past a buffer.
test_hostile_agent() {
	local d says want rc out
	d=$(fake_arch)
	while IFS='|' read -r says want; do
		[ "$says" != long ] || says=$(printf '%070000d' 0)
		rc=0
		out=$(FAKE_AGENT=$says LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" \
			-r "$d/run" -T 10 true 2>&1) || rc=$?
		expect_eq 2 $rc "exit status when the agent sends '${says:0:30}'"
		grep -qxF "lab: node guest: $want" <<<"$out" || fail "for '${says:0:30}' wanted '$want', got: $out"
	done <<-'EOF'
	OUT $SEQ -1\n|the agent sent garbage: a bad OUT header 'OUT 1 -1'
	OUT $SEQ 18446744073709551615\n|the agent sent garbage: a bad OUT header 'OUT 1 18446744073709551615'
	OUT $SEQ 65537\n|the agent sent garbage: a bad OUT header 'OUT 1 65537'
	OUT 3\nabc|the agent sent garbage: a bad OUT header 'OUT 3'
	OUT 99999999999999999999999 1\nx|the agent sent garbage: a bad OUT header 'OUT 99999999999999999999999 1'
	END $SEQ -1\n|the agent sent garbage: a bad END header 'END 1 -1'
	END $SEQ 256\n|the agent sent garbage: a bad END header 'END 1 256'
	END 0\n|the agent sent garbage: a bad END header 'END 0'
	long|the agent sent garbage: a header line longer than the protocol's
	HELLO\x01\n|the agent sent garbage: an unknown header 'HELLO?'
	END $SEQ 7\x00junk\n|the agent sent garbage: a NUL byte in a header line 'END 1 7'
	END $SEQ 1\nEND $SEQ 0\n|the agent sent garbage: an END with no command running 'END 1 0'
	OUT $SEQ 1\nxEND $SEQ 1\nOUT $SEQ 1\ny|the agent sent garbage: output with no command running 'OUT 1 1'
	OUT 2 1\nx|the agent sent garbage: output of another command 'OUT 2 1'
	END 0 0\n|the agent sent garbage: an END of another command 'END 0 0'
	exit|QEMU exited with status 0 (see guest.qemu.log)
	EOF
	rc=0
	# An empty OUT is well-formed (make fuzz found lab boot reading the
	# byte before it).
	# shellcheck disable=SC2016 # $SEQ is fake-qemu's to fill in
	out=$(FAKE_AGENT='OUT $SEQ 0\nOUT $SEQ 3\nabcOUT $SEQ 0\nEND $SEQ 3\n' LAB_TOP=$d "$lab" boot \
		-a toy -b "$d/build" -r "$d/run" -T 10 true 2>/dev/null) || rc=$?
	expect_eq 1 $rc "exit status of a command that failed"
	expect_eq abc "$out" "output of a well-formed agent"
	# A stray END of the first command, arriving while the second runs,
	# must not end the second with the first's status.
	printf 'node a arch=toy\ntest "one" a: false\ntest "two" a: false\n' >"$d/two.topo"
	rc=0
	# shellcheck disable=SC2016 # $SEQ and $PREV are fake-qemu's to fill in
	out=$(FAKE_AGENT='END $SEQ 1\n' FAKE_AGENT_NEXT='END $PREV 0\n' LAB_TOP=$d timeout 60 \
		"$lab" run -b "$d/build" -r "$d/run" "$d/two.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status when an END of an earlier command comes during the next"
	grep -qx "lab: node a: the agent sent garbage: an END of another command 'END 1 0'" <<<"$out" ||
		fail "the stray END is not named: $out"
	grep -q "^ok .* two" <<<"$out" && fail "the stray END passed the second test: $out"
	[ -z "$(pgrep -f "fake-qemu.*$d/")" ] || fail "fake QEMU left running"
}

# A guest that stops reading cannot stall the launcher: its commands queue
# up to a bound, then the lab fails naming it.  A channel closed before a
# command, or a panic after the last one, fails the lab too (exit 2).
test_lost_guests() {
	local d rc out i long
	d=$(fake_arch)
	long=$(printf '%065000d' 0)
	{
		echo "node a arch=toy"
		for i in 1 2 3 4 5 6 7 8; do echo "test \"t$i\" a: true #$long"; done
	} >"$d/long.topo"
	rc=0
	out=$(FAKE_AGENT=deaf LAB_TOP=$d timeout 60 "$lab" run -b "$d/build" -r "$d/run" \
		"$d/long.topo" 2>&1) || rc=$?
	expect_eq 2 $rc "exit status with an agent that reads nothing"
	grep -q "^lab: node a: the agent has left [0-9]* bytes of commands unread$" <<<"$out" ||
		fail "no message naming the deaf agent: $(tail -n 3 <<<"$out")"
	rc=0
	out=$(FAKE_AGENT=shut LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" -r "$d/run" \
		-T 10 true 2>&1) || rc=$?
	expect_eq 2 $rc "exit status with a channel closed before the command"
	grep -q "^lab: node guest: the agent's control channel closed" <<<"$out" ||
		fail "no message naming the closed channel: $out"
	rc=0
	# shellcheck disable=SC2016 # $SEQ is fake-qemu's to fill in
	out=$(FAKE_AGENT='END $SEQ 0\n' FAKE_CONSOLE=$'[ 1.0] Kernel panic - not syncing: Attempted to kill init!\n' \
		LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" -r "$d/run" -T 10 true 2>&1) || rc=$?
	expect_eq 2 $rc "exit status with a panic after the command"
	grep -q "^Bail out! node guest: the kernel reported a problem: Kernel panic - not syncing" <<<"$out" ||
		fail "the panic is not named: $out"
	grep -qx "# \[ 1.0\] Kernel panic - not syncing: Attempted to kill init!" <<<"$out" ||
		fail "the panic's console lines are not shown: $out"
	rc=0
	out=$(FAKE_CONSOLE_MIB=65 FAKE_AGENT=' ' LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" \
		-r "$d/run" -T 20 true 2>&1) || rc=$?
	expect_eq 2 $rc "exit status with a console flood"
	grep -qx "lab: node guest: its console printed over 64 MiB (see guest.console.log)" <<<"$out" ||
		fail "the console flood is not named: $out"
	[ -z "$(pgrep -f "fake-qemu.*$d/")" ] || fail "fake QEMU left running"
}

# A test that prints 38 MB: the KTAP diagnostics keep its end (16 KiB or
# more, saying how much was cut and where the rest is), the run folder's
# test log keeps 16 MiB of it, and nothing more is held or copied.
test_bounded_output() {
	local d rc=0 size
	d=$(fake_arch)
	printf 'node a arch=toy\ntest "floods" a: true\n' >"$d/flood.topo"
	FAKE_FLOOD=3000000 LAB_TOP=$d "$lab" run -b "$d/build" -r "$d/run" "$d/flood.topo" \
		>"$d/out" 2>&1 || rc=$?
	expect_eq 1 $rc "exit status"
	size=$(stat -c %s "$d/run/results.ktap")
	[ "$size" -lt 65536 ] || fail "results.ktap holds $size bytes"
	grep -q "^# \[3786[0-9]* bytes before these lines cut; all of it: test-2.log\]$" "$d/out" ||
		fail "no note of what was cut: $(grep -m1 cut "$d/out")"
	grep -q "^# line 2999999$" "$d/out" || fail "the output's last line is not in the diagnostics"
	expect_eq $((16 << 20)) "$(head -c $((16 << 20)) "$d/run/test-2.log" | wc -c)" "bytes logged"
	expect_eq "[lab: output cut here, at 16 MiB]" "$(tail -n 1 "$d/run/test-2.log")" "end of the log"
	# A NUL or a terminal escape in the output hides nothing after it; the
	# run folder, used again, keeps no log of an earlier, longer run.
	echo old >"$d/run/test-7.log"
	echo old >"$d/run/setup-gone.log"
	rc=0
	# shellcheck disable=SC2016 # $SEQ is fake-qemu's to fill in
	FAKE_AGENT='OUT $SEQ 27\nstart\x00\x1b[2J\nreal error here\nEND $SEQ 1\n' LAB_TOP=$d "$lab" run \
		-b "$d/build" -r "$d/run" "$d/flood.topo" >"$d/out" 2>&1 || rc=$?
	expect_eq 1 $rc "exit status with a NUL in the output"
	grep -qx "# start??\[2J" "$d/out" || fail "the NUL line is not shown as such: $(cat "$d/out")"
	grep -qx "# real error here" "$d/out" || fail "the line after a NUL is lost: $(cat "$d/out")"
	{ [ ! -e "$d/run/test-7.log" ] && [ ! -e "$d/run/setup-gone.log" ]; } ||
		fail "logs of an earlier run are left: $(ls "$d/run")"
}

# The launcher (tools/lab/host) and the guest's init and agent
# (tools/lab/guest) share one header, tools/lab/proto.h: each side
# includes only its own headers and ../proto.h, and proto.h includes none.
test_lab_sides_share_proto_only() {
	local f dir inc bad=0
	for f in "$top"/tools/lab/host/*.[ch] "$top"/tools/lab/guest/*.[ch] "$top"/tools/lab/proto.h; do
		dir=$(dirname "$f")
		while read -r inc; do
			[ "$dir" != "$top/tools/lab" ] || { echo "tools/lab/proto.h includes \"$inc\""; bad=1; continue; }
			[ "$inc" = ../proto.h ] && continue
			[ "${inc#*/}" = "$inc" ] && [ -f "$dir/$inc" ] && continue
			echo "${f#"$top"/}: #include \"$inc\" is not its side's own nor ../proto.h"
			bad=1
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
	[ $bad -eq 0 ]
}

# The fault queue of the wires, with time driven by hand: exact figures.
test_fault_queue() {
	local d out
	d=$(scratch)
	gcc -O2 -Wall -Wextra -Werror -o "$d/fault_test" "$top/tests/host/fault_test.c" \
		"$top/tools/lab/host/fault.c" -lm || fail "fault_test does not build"
	out=$("$d/fault_test") || fail "$(grep -v '^ok' <<<"$out")"
	# its closing line is the one of every KTAP run
	expect_eq "$("$top/tools/ktap/close.sh" <(echo "$out"))" "$(tail -n 1 <<<"$out")" "fault_test's closing line"
}

# Link steps typed at lab shell's prompt are checked as in a file; a bad
# one is named and the shell goes on.  FAKE_FRAMES makes the fake QEMUs
# bind their NIC sockets, so the relay has members to send to.
test_shell_link_steps() {
	local d out rc=0
	d=$(fake_arch)
	printf 'node a arch=toy\nnode b arch=toy\nlink a:eth1 b:eth1\n' >"$d/two.topo"
	out=$(printf '%s\n' 'link-set a:eth1 loss=5%' link-foo 'link-set a:eth1 loss=5' \
		'link-down a:eth9' 'link-set a:eth1 jitter=1ms' 'link-set b:eth1 rate=0' quit |
		FAKE_FRAMES=1 LAB_TOP=$d timeout 60 "$lab" shell -b "$d/build" -r "$d/run" \
		"$d/two.topo" 2>&1) || rc=$?
	expect_eq 0 $rc "lab shell exit status"
	for want in "lab: expected link-down, link-up or link-set" \
		"lab: loss=5: give a percentage from 0% to 100% (1%, 0.5%)" \
		"lab: a:eth9 is on no link or lan" \
		"lab: jitter= is larger than delay=: a frame cannot leave before it came"; do
		grep -qF "$want" <<<"$out" || fail "no '$want' in: $out"
	done
	[ "$(grep -o 'lab: ' <<<"$out" | wc -l)" -eq 5 ] || fail "wanted 4 refusals and the run folder: $out"
}

# A run folder is the caller's alone (its console socket is a root shell
# in the guest), and a comma in its path reaches QEMU doubled, as QEMU's
# option lists want it.
test_run_folder_private() {
	local d out rc
	d=$(fake_arch)
	rc=0
	# shellcheck disable=SC2016 # $SEQ is fake-qemu's to fill in
	out=$(umask 000 && FAKE_AGENT='END $SEQ 0\n' LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" \
		-r "$d/run,1" -T 10 true 2>&1) || rc=$?
	expect_eq 0 $rc "exit status with a comma in the run folder: $out"
	expect_eq 700 "$(stat -c %a "$d/run,1")" "mode of the run folder under umask 000"
	expect_eq 600 "$(stat -c %a "$d/run,1/results.ktap")" "mode of results.ktap"
	grep -q 'path=[^ ]*/run,,1/guest.ctl' "$d/run,1/reproduce" || fail "comma not doubled in reproduce"
}

unit_lab
unit_header
ktap_run "lab boot refuses bad input before QEMU, in one line" test_lab_boot_bad_input
ktap_run "lab help and lab VERB --help print usage; unknown verbs named" test_lab_help
ktap_run "a hostile agent's lengths and statuses fail its node, named" test_hostile_agent
ktap_run "a deaf agent, a closed channel, a late panic, a console flood: exit 2, named" test_lost_guests
ktap_run "a test's output is bounded: a tail in KTAP, 16 MiB in its log" test_bounded_output
ktap_run "the launcher and the guest share tools/lab/proto.h, no other header" test_lab_sides_share_proto_only
ktap_run "faults on a wire: exact delays and pacing, rates over 10,000 frames, seeded" test_fault_queue
ktap_run "link steps at lab shell's prompt: checked as in a file, refusals named" test_shell_link_steps
ktap_run "a run folder is 0700 whatever the umask; a comma in its path reaches QEMU" test_run_folder_private
