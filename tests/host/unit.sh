#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests: the build scripts' error paths and the result
# counting, each on small inputs made here (no kernel build, no guest).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
KTAP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-unit.XXXXXX")
export KTAP_TMP
trap 'rm -rf "$KTAP_TMP"' EXIT
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/fake-arch.sh
. "$top/tests/lib/fake-arch.sh"

scratch() {	# a fresh, empty folder for one test
	local d
	d=$(mktemp -d "$KTAP_TMP/t.XXXXXX")
	echo "$d"
}

# A fragment symbol that olddefconfig dropped is named with FILE:LINE.
test_config_dropped_symbol() {
	local d err
	d=$(scratch)
	printf 'CONFIG_NET=y\n# CONFIG_FOO is not set\nCONFIG_VETH=y\nCONFIG_NR=4\n' >"$d/frag"
	printf 'CONFIG_NET=y\nCONFIG_VETH=y\nCONFIG_NR=4\n' >"$d/good"
	printf 'CONFIG_NET=y\n# CONFIG_VETH is not set\nCONFIG_NR=8\nCONFIG_FOO=y\n' >"$d/bad"
	"$top/tools/build/check-config.sh" "$d/good" "$d/frag"
	err=$("$top/tools/build/check-config.sh" "$d/bad" "$d/frag" 2>&1) && fail "bad config accepted"
	echo "$err"
	grep -q "frag:3: CONFIG_VETH=y did not stick" <<<"$err"
	grep -q "frag:4: CONFIG_NR=4 did not stick (the config has CONFIG_NR=8)" <<<"$err"
	grep -q "frag:2: CONFIG_FOO=n did not stick" <<<"$err"
	# a later fragment overrides an earlier one (configs/no-l3net.config)
	printf '# CONFIG_VETH is not set\n' >"$d/off"
	printf 'CONFIG_NET=y\nCONFIG_NR=4\n' >"$d/noveth"
	"$top/tools/build/check-config.sh" "$d/noveth" "$d/frag" "$d/off"
	! "$top/tools/build/check-config.sh" "$d/good" "$d/frag" "$d/off" 2>/dev/null
}

# A small stand-in for linux-source: one file, two patches against it.
fake_source() {	# fake_source DIR
	local d=$1 w
	w=$d/work
	mkdir -p "$w/linux-source-0.0" "$d/patches"
	printf 'one\ntwo\nthree\n' >"$w/linux-source-0.0/file"
	tar -C "$w" -cJf "$d/src.tar.xz" linux-source-0.0
	git -C "$w/linux-source-0.0" init -q
	git -C "$w/linux-source-0.0" add -A
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -m base
	sed -i 's/one/ONE/' "$w/linux-source-0.0/file"
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -am "first"
	sed -i 's/three/THREE/' "$w/linux-source-0.0/file"
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -am "second"
	git -C "$w/linux-source-0.0" format-patch -q -o "$d/patches" HEAD~2..HEAD
	(cd "$d/patches" && ls ./*.patch | sed 's|^\./||') >"$d/patches/series"
}

# The series applies; re-running with nothing changed keeps every commit.
test_tree_applies_series() {
	local d head
	d=$(scratch)
	fake_source "$d"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches"
	expect_eq "ONE two THREE" "$(tr '\n' ' ' <"$d/tree/file" | sed 's/ $//')" "patched file"
	head=$(git -C "$d/tree" rev-parse HEAD)
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches"
	expect_eq "$head" "$(git -C "$d/tree" rev-parse HEAD)" "HEAD after a no-op run"
}

# A patch that does not apply is named; the tree holds exactly the patches
# before it, with nothing half-applied.
test_tree_bad_patch_named() {
	local d err first
	d=$(scratch)
	fake_source "$d"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches"
	first=$(git -C "$d/tree" rev-parse HEAD~1)
	sed -i 's/^-three$/-tree/' "$d/patches/0002-second.patch"
	err=$("$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" 2>&1) &&
		fail "a broken patch applied"
	echo "$err"
	grep -q "0002-second.patch does not apply" <<<"$err"
	expect_eq "$first" "$(git -C "$d/tree" rev-parse HEAD)" "HEAD after the failure"
	expect_eq "" "$(git -C "$d/tree" status --porcelain)" "tree status"
	[ ! -d "$d/tree/.git/rebase-apply" ] || fail "git am left in progress"
}

# Editing the second patch re-applies from it: the first commit is kept.
test_tree_edit_reapplies_suffix() {
	local d first
	d=$(scratch)
	fake_source "$d"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches"
	first=$(git -C "$d/tree" rev-parse HEAD~1)
	sed -i 's/^+THREE$/+THR3E/' "$d/patches/0002-second.patch"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" | grep -q "AM      0002"
	expect_eq "$first" "$(git -C "$d/tree" rev-parse HEAD~1)" "first patch's commit"
	grep -q THR3E "$d/tree/file"
}

# Two makes share the tree: a compile holds its lock shared, so a no-op
# check passes beside it, while re-patching waits for the compile to end
# (named) and two makes re-patching at once apply the series once.
test_tree_locked() {
	local d out holder t0
	d=$(scratch)
	fake_source "$d"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" >/dev/null
	flock -s "$d/tree.lock" sleep 3 &
	holder=$!
	sleep 0.3
	out=$(timeout 2 "$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" 2>&1) ||
		fail "a no-op check waited for a compile: $out"
	expect_eq "" "$out" "a no-op check beside a compile"
	sed -i 's/^+THREE$/+THR3E/' "$d/patches/0002-second.patch"
	t0=$SECONDS
	out=$("$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" 2>&1)
	wait "$holder"
	grep -qxF "netns-lab: waiting for another make that holds $d/tree.lock" <<<"$out" ||
		fail "re-patching did not say it waits: $out"
	[ $((SECONDS - t0)) -ge 2 ] || fail "re-patching did not wait for the compile"
	grep -q THR3E "$d/tree/file"
	sed -i 's/^+THR3E$/+THREE/' "$d/patches/0002-second.patch"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" >"$d/one" 2>&1 &
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" >"$d/two" 2>&1
	wait $! || fail "the first of two makes at once failed: $(cat "$d/one")"
	expect_eq 1 "$(cat "$d/one" "$d/two" | grep -c "AM      0002")" "patches applied by two makes at once"
	grep -q THREE "$d/tree/file"
	expect_eq "" "$(git -C "$d/tree" status --porcelain)" "tree status after two makes at once"
}

# locked.sh: a second make waits for the object folder's lock, says so,
# then runs; a lock held shared admits another shared holder at once.
test_locked_waits() {
	local d out t0
	d=$(scratch)
	flock "$d/obj.lock" sleep 2 &
	sleep 0.3
	t0=$SECONDS
	out=$("$top/tools/build/locked.sh" "$d/obj.lock" echo built 2>&1)
	expect_eq "netns-lab: waiting for another make that holds $d/obj.lock
built" "$out" "a make behind another"
	[ $((SECONDS - t0)) -ge 1 ] || fail "it did not wait"
	wait
	flock -s "$d/obj.lock" sleep 2 &
	sleep 0.3
	out=$(timeout 1 "$top/tools/build/locked.sh" --shared "$d/obj.lock" echo read 2>&1) ||
		fail "a shared holder waited for another: $out"
	expect_eq read "$out" "two shared holders"
	wait
}

# A series entry without its file is named.
test_tree_missing_patch_file() {
	local d err
	d=$(scratch)
	fake_source "$d"
	echo "0003-nowhere.patch" >>"$d/patches/series"
	err=$("$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" 2>&1) &&
		fail "a missing patch was accepted"
	echo "$err"
	grep -q "0003-nowhere.patch: no such patch file" <<<"$err"
}

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
# tests/ktap/example.sh writes every kind of line tests/lib/ktap.sh can.
test_ktap_writer_golden() {
	local rc=0 closing
	diff -u "$top/tests/ktap/example.ktap" <(bash "$top/tests/ktap/example.sh")
	closing=$("$top/tools/ktap/close.sh" "$top/tests/ktap/example.ktap") || rc=$?
	expect_eq "$(cat "$top/tests/ktap/example.close")" "$closing" "closing line"
	[ $rc -eq 1 ] || fail "ktap/close.sh exit $rc for a document with failures, wanted 1"
}

# Without root, missing packages are listed in one message, exit 1.
test_deps_non_root_message() {
	local err
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	err=$(HOME=/ NETNS_LAB_PACKAGES="make netns-lab-no-such-package" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$top/tools/build/deps.sh" 2>&1) &&
		fail "deps.sh succeeded with a package missing"
	echo "$err"
	expect_eq 1 "$(wc -l <<<"$err")" "lines of output"
	grep -q "deps: missing:.*packages netns-lab-no-such-package" <<<"$err"
}

# lab boot refuses bad input with one line naming it, before QEMU starts.
test_lab_boot_bad_input() {
	local d err rc
	d=$(scratch)
	rc=0
	err=$("$lab" boot -a sparc -b "$d" /lab/tests/l2.sh 2>&1) || rc=$?
	expect_eq 2 $rc "exit status for -a sparc"
	expect_eq "lab: unknown arch 'sparc' (one of: $(cd "$top/arch" && ls -- *.conf | sed 's/\.conf$//' | xargs))" \
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

# make names an unsupported ARCH and a missing cross compiler.
test_make_bad_arch_and_compiler() {
	local err
	err=$(make -s -C "$top" ARCH=sparc kernel 2>&1) && fail "make ARCH=sparc succeeded"
	echo "$err"
	grep -q "ARCH=sparc is not supported" <<<"$err"
	err=$(make -s -C "$top" ARCH=arm64 CROSS_COMPILE=no-such-cross- toolchain 2>&1) &&
		fail "make succeeded without a cross compiler"
	echo "$err"
	grep -q "no-such-cross-gcc not found" <<<"$err"
}

# make topo=PATH takes a path with spaces, quotes and $ whole (a topology
# the user keeps in "my labs/it's.topo").
test_make_topo_path_whole() {
	local d f out
	d=$(scratch)
	f="$d/my labs/it's a \$HOME lab.topo"
	mkdir -p "$d/my labs"
	cp "$top/topo/bridge.topo" "$f"
	out=$(make -s -C "$top" topo="$f" lint 2>&1) || fail "make lint of a path with spaces: $out"
	expect_eq "  LINT    $f: no errors" "$out" "make lint names the file whole"
	out=$(make -s -C "$top" topo="$f" argv 2>&1) || fail "make argv of a path with spaces: $out"
	expect_eq "$(make -s -C "$top" topo=bridge argv)" "$out" "the lab from a path with spaces"
}

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

# The host's TSC rate (arch tcg_tsc_param=) as the golden files say it.
host_khz() { sed -E 's/(_khz=)[0-9]+/\1HOST/'; }

# `lab argv` prints, for every shipped topology and every arch (each
# arch/ARCH.conf), exactly the QEMU command lines in
# tests/lab-argv/NAME.ARCH.argv; no golden file is left without its topology.
test_lab_argv_golden() {
	local f a name golden compared=0 bad=0
	for f in "$top"/topo/*.topo; do
		name=$(basename "$f" .topo)
		for a in $(cd "$top/arch" && ls -- *.conf | sed 's/\.conf$//'); do
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
	for a in $(cd "$top/arch" && ls -- *.conf | sed 's/\.conf$//'); do
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

# fake_arch: a scratch project top whose arch toy boots tests/host/fake-qemu
fake_arch() {
	local d
	d=$(scratch)
	fake_arch_into "$d" "$top"
	echo "$d"
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
	out=$(FAKE_AGENT='OUT $SEQ 0\nOUT $SEQ 3\nabcOUT $SEQ 0\nEND $SEQ 3\n' LAB_TOP=$d "$lab" boot \
		-a toy -b "$d/build" -r "$d/run" -T 10 true 2>/dev/null) || rc=$?
	expect_eq 1 $rc "exit status of a command that failed"
	expect_eq abc "$out" "output of a well-formed agent"
	# A stray END of the first command, arriving while the second runs,
	# must not end the second with the first's status.
	printf 'node a arch=toy\ntest "one" a: false\ntest "two" a: false\n' >"$d/two.topo"
	rc=0
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
	FAKE_AGENT='OUT $SEQ 27\nstart\x00\x1b[2J\nreal error here\nEND $SEQ 1\n' LAB_TOP=$d "$lab" run \
		-b "$d/build" -r "$d/run" "$d/flood.topo" >"$d/out" 2>&1 || rc=$?
	expect_eq 1 $rc "exit status with a NUL in the output"
	grep -qx "# start??\[2J" "$d/out" || fail "the NUL line is not shown as such: $(cat "$d/out")"
	grep -qx "# real error here" "$d/out" || fail "the line after a NUL is lost: $(cat "$d/out")"
	[ ! -e "$d/run/test-7.log" ] && [ ! -e "$d/run/setup-gone.log" ] ||
		fail "logs of an earlier run are left: $(ls "$d/run")"
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
	known=$(cd "$top/arch" && ls -- *.conf | sed 's/\.conf$//' | xargs)
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
	expect_eq "lab: unknown arch 'sparc' (one of: $(printf '%s\n' $known toy | sort | xargs))" "$out" "-a message"
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

# The fault queue of the wires, with time driven by hand: exact figures.
test_fault_queue() {
	local d out
	d=$(scratch)
	gcc -O2 -Wall -Wextra -Werror -o "$d/fault_test" "$top/tests/host/fault_test.c" \
		"$top/tools/lab/fault.c" -lm || { fail "fault_test does not build"; return; }
	out=$("$d/fault_test") || fail "$(grep -v '^ok' <<<"$out")"
	# its closing line is the one of every KTAP run
	expect_eq "$("$top/tools/ktap/close.sh" <(echo "$out"))" "$(tail -n 1 <<<"$out")" "fault_test's closing line"
}

# A guest image: reproducible, readable by every user from its root down
# (a 0700 / once shut uid 65534 out of the whole guest), files root-owned
# where asked, mount points made; bad input named, no image left.
test_image_builder() {
	local d out rc a b
	d=$(scratch)
	mkdir -p "$d/base/bin"
	echo base >"$d/base/bin/tool"
	(cd "$d/base" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$d/base.cpio"
	echo payload >"$d/payload"
	chmod 0700 "$d/payload"
	for out in a b; do
		# a builder's umask 077 and a 0700 source: still readable by all
		(umask 077 && "$top/initramfs/build-image.sh" "$d/$out.erofs" --base "$d/base.cpio" \
			--dir lab/kselftests lab/run/x="$d/payload" >/dev/null) ||
			{ fail "build-image.sh failed"; return; }
		touch "$d/payload"
	done
	a=$(sha256sum <"$d/a.erofs") b=$(sha256sum <"$d/b.erofs")
	expect_eq "$a" "$b" "two builds of the same inputs"
	out=$(dump.erofs --path=/ "$d/a.erofs")
	grep -q 'Uid: 0   Gid: 0  Access: 0755/' <<<"$out" || fail "image root not 0755 root:root: $out"
	for f in /bin/tool /lab/run/x /lab/kselftests; do
		dump.erofs --path="$f" "$d/a.erofs" | grep -q 'Uid: 0   Gid: 0  Access: 0[67][45][45]/' ||
			fail "$f not in the image, root-owned, readable by all: $(dump.erofs --path="$f" "$d/a.erofs")"
	done
	# a destination the base has as a symlink: replaced, never followed
	ln -s "$d/outside" "$d/base/bin/link"
	(cd "$d/base" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$d/base.cpio"
	(umask 077 && "$top/initramfs/build-image.sh" "$d/l.erofs" --base "$d/base.cpio" \
		bin/link="$d/payload" >/dev/null) || fail "build-image.sh over a symlink failed"
	[ ! -e "$d/outside" ] || fail "build-image.sh wrote through the base's symlink"
	dump.erofs --path=/bin/link "$d/l.erofs" | grep -q 'regular file' || fail "bin/link not replaced"
	rc=0
	out=$("$top/initramfs/build-image.sh" "$d/c.erofs" ../up="$d/payload" 2>&1) || rc=$?
	expect_eq "1 build-image: ../up: a destination is a plain relative path" "$rc $out" "a destination outside the image"
	rc=0
	out=$("$top/initramfs/build-image.sh" "$d/c.erofs" --dir ../up 2>&1) || rc=$?
	expect_eq "1 build-image: ../up: a destination is a plain relative path" "$rc $out" "a --dir outside the image"
	# a folder the base has as a symlink out of the image: refused
	mkdir -p "$d/hostdir"
	ln -s "$d/hostdir" "$d/base/etc"
	(cd "$d/base" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$d/base.cpio"
	for arg in etc/x="$d/payload" "--dir etc/sub"; do
		rc=0
		# shellcheck disable=SC2086 # "--dir DIR": two words
		out=$("$top/initramfs/build-image.sh" "$d/c.erofs" --base "$d/base.cpio" $arg 2>&1) || rc=$?
		expect_eq 1 $rc "exit status for $arg through a symlink"
		[[ $out = *"leads out of the image"* ]] || fail "$arg through a symlink: $out"
	done
	[ -z "$(ls "$d/hostdir")" ] || fail "build-image.sh wrote through a folder symlink"

	rc=0
	out=$("$top/initramfs/build-image.sh" "$d/c.erofs" lab/y="$d/nosuch" 2>&1) || rc=$?
	expect_eq 1 $rc "exit status for a missing file"
	expect_eq "build-image: $d/nosuch: not found" "$out" "message for a missing file"
	[ ! -e "$d/c.erofs" ] && [ ! -e "$d/c.erofs.tmp" ] || fail "an image was left after an error"

	# a directory is copied whole, its symlinks as they are, and only
	# where the base has nothing (netselftests takes selftests/net so)
	mkdir -p "$d/tree/sub"
	echo t >"$d/tree/sub/file"
	ln -s /proc/self/fd "$d/tree/fd"
	"$top/initramfs/build-image.sh" "$d/t.erofs" --base "$d/base.cpio" tests="$d/tree" >/dev/null ||
		fail "build-image.sh with a directory failed"
	dump.erofs --path=/tests/sub/file "$d/t.erofs" | grep 'regular file' >/dev/null || fail "the tree's file is not in the image"
	dump.erofs --path=/tests/fd "$d/t.erofs" | grep symlink >/dev/null || fail "the tree's symlink was followed"
	rc=0
	out=$("$top/initramfs/build-image.sh" "$d/c.erofs" --base "$d/base.cpio" bin="$d/tree" 2>&1) || rc=$?
	expect_eq "1 build-image: bin: a directory is copied only where nothing is" "$rc $out" "a directory over the base's"
}

# run-net, the upstream selftests' runner: a pass, a failure with its
# output, an expected skip with its reason, an unexpected skip and a hang
# each come out as they should.
test_upstream_runner() {
	local d out rc c
	d=$(scratch)
	mkdir "$d/net"
	printf '#!/bin/sh\nexit 0\n' >"$d/net/pass"
	printf '#!/bin/sh\necho "TEST: it  [FAIL]"\nexit 1\n' >"$d/net/fail"
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
# SKIP: part" "$(sed 's/[[:space:]]*$//' <<<"$out")" "run-net's KTAP"
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
	for c in $(sed -n 's/^for c in \(.*\); do$/\1/p' "$top/tests/upstream/run-net"); do
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
	printf 'KTAP version 1\n1..4\nok 1 an idle namespace (x86_64)\n  ok 1 nested\n  # time: 77s\n' >"$d/g.ktap"
	printf 'ok 2 a (x86_64, L3 key off)\n# time: 100s\nnot ok 3 b -4 (x86_64, L3 key off)\n# time: 2s\n# time: 30s\n' >>"$d/g.ktap"
	printf 'ok 4 c (x86_64, L3 key on) # SKIP no c here\n# time: 20s\n' >>"$d/g.ktap"
	# cut short by the suite's time: its last time stays
	printf 'not ok 5 kept (x86_64, L3 key off)\n# timed out after 3s\n# time: 3s\n' >>"$d/g.ktap"
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

# A run folder is the caller's alone (its console socket is a root shell
# in the guest), and a comma in its path reaches QEMU doubled, as QEMU's
# option lists want it.
test_run_folder_private() {
	local d out rc
	d=$(fake_arch)
	rc=0
	out=$(umask 000 && FAKE_AGENT='END $SEQ 0\n' LAB_TOP=$d timeout 60 "$lab" boot -a toy -b "$d/build" \
		-r "$d/run,1" -T 10 true 2>&1) || rc=$?
	expect_eq 0 $rc "exit status with a comma in the run folder: $out"
	expect_eq 700 "$(stat -c %a "$d/run,1")" "mode of the run folder under umask 000"
	expect_eq 600 "$(stat -c %a "$d/run,1/results.ktap")" "mode of results.ktap"
	grep -q 'path=[^ ]*/run,,1/guest.ctl' "$d/run,1/reproduce" || fail "comma not doubled in reproduce"
}

make -s --no-print-directory -C "$top" host-tools >/dev/null || exit 1
lab=$top/build/host/lab

# The plan is the ktap_run lines below: adding one cannot leave it stale.
ktap_header "$(grep -c "^ktap_run " "$0")"
ktap_run "check-config names a symbol that did not stick" test_config_dropped_symbol
ktap_run "kernel-tree applies the series, no-op when unchanged" test_tree_applies_series
ktap_run "kernel-tree names a patch that does not apply" test_tree_bad_patch_named
ktap_run "kernel-tree re-applies only from an edited patch" test_tree_edit_reapplies_suffix
ktap_run "kernel-tree: a compile and two makes at once share the tree, locked" test_tree_locked
ktap_run "locked.sh: a second make waits, named; shared holders do not" test_locked_waits
ktap_run "kernel-tree names a missing patch file" test_tree_missing_patch_file
ktap_run "ktap-count: truncated runs fail, skips count apart" test_ktap_count
ktap_run "the shell KTAP writer and closing line match tests/ktap (golden)" test_ktap_writer_golden
ktap_run "deps without root lists what to install" test_deps_non_root_message
ktap_run "lab boot refuses bad input before QEMU, in one line" test_lab_boot_bad_input
ktap_run "make names a bad ARCH and a missing cross compiler" test_make_bad_arch_and_compiler
ktap_run "make topo=PATH takes spaces and quotes in the path" test_make_topo_path_whole
ktap_run "topology errors: FILE:LINE for every error (golden files)" test_topology_golden_errors
ktap_run "topology file that does not exist: named, nothing built" test_topology_missing_file
ktap_run "every shipped topology passes lint" test_shipped_topologies_lint
ktap_run "lab help and lab VERB --help print usage; unknown verbs named" test_lab_help
ktap_run "lab argv prints the QEMU lines in tests/lab-argv (golden files)" test_lab_argv_golden
ktap_run "lab dump prints the parsed topologies in tests/lab-dump (golden files)" test_lab_dump_golden
ktap_run "an arch is one file: arch/NAME.conf is all the launcher reads" test_arch_is_one_file
ktap_run "a command longer than the protocol's is a FILE:LINE error" test_command_too_long
ktap_run "a hostile agent's lengths and statuses fail its node, named" test_hostile_agent
ktap_run "a deaf agent, a closed channel, a late panic, a console flood: exit 2, named" test_lost_guests
ktap_run "a test's output is bounded: a tail in KTAP, 16 MiB in its log" test_bounded_output
ktap_run "faults on a wire: exact delays and pacing, rates over 10,000 frames, seeded" test_fault_queue
ktap_run "link steps at lab shell's prompt: checked as in a file, refusals named" test_shell_link_steps
ktap_run "a guest image is reproducible, readable by all, root-owned; no write outside" test_image_builder
ktap_run "run-net: passes, failures, expected and unexpected skips, hangs" test_upstream_runner
ktap_run "upstream merge: guests renumbered, cut short, against no series" test_upstream_merge
ktap_run "upstream lists: no test in two of them" test_upstream_lists_disjoint
ktap_run "upstream-net TESTS=, SHARDS=, BASELINE=: a bad or empty filter refused at once, one line" test_upstream_tests_filter_refused
ktap_run "upstream join: a run's shards one guest again for merge" test_upstream_join
ktap_run "upstream split: a run's shards by the tests' last times" test_upstream_split
ktap_run "lint still accepts CRLF, tabs, UTF-8 comments, keyword-like and 15-character names" test_lint_accepts_valid
ktap_run "lint refuses a directory and a FIFO at once, bounds the errors of junk" test_lint_odd_files
ktap_run "a run folder is 0700 whatever the umask; a comma in its path reaches QEMU" test_run_folder_private
