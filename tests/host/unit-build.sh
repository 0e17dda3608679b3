#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of the build steps: check-config.sh, kernel-tree.sh
# on a stand-in linux-source, locked.sh, deps.sh without root, and the
# errors of make itself, each on small inputs made here (no kernel build).
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

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

# Another tarball (a new base, or Debian's update of the package) is
# unpacked again and the series applied to it; a missing one names its
# package.
test_tree_new_tarball_unpacked() {
	local d err out
	d=$(scratch)
	fake_source "$d"
	"$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches" >/dev/null
	mkdir -p "$d/new/linux-source-0.0"
	printf 'one\ntwo\nthree\n' >"$d/new/linux-source-0.0/file"
	echo new >"$d/new/linux-source-0.0/other"
	tar -C "$d/new" -cJf "$d/src.tar.xz" linux-source-0.0
	out=$("$top/tools/build/kernel-tree.sh" "$d/src.tar.xz" "$d/tree" "$d/patches")
	echo "$out"
	grep -q "unpacking src.tar.xz" <<<"$out"
	expect_eq "ONE two THREE" "$(tr '\n' ' ' <"$d/tree/file" | sed 's/ $//')" "patched file"
	expect_eq new "$(cat "$d/tree/other")" "the new tarball's file"
	err=$("$top/tools/build/kernel-tree.sh" "$d/none.tar.xz" "$d/tree" "$d/patches" linux-source-9.9 2>&1) &&
		fail "a missing tarball was accepted"
	echo "$err"
	grep -q "none.tar.xz: not found (apt-get install linux-source-9.9, or make deps)" <<<"$err"
}

# The series names its base package once; a series without one, with two,
# or with something else is refused, named.
test_series_base() {
	local d err
	d=$(scratch)
	expect_eq linux-source-6.1 "$("$top/tools/build/series-base.sh" <(printf '# base: linux-source-6.1\na.patch\n'))" "base"
	for bad in 'a.patch' '# base: linux-source-6.1\n# base: linux-source-6.12' '# base: linux-image-6.1'; do
		printf '%b\n' "$bad" >"$d/series"
		err=$("$top/tools/build/series-base.sh" "$d/series" 2>&1) && fail "accepted: $bad"
		echo "$err"
		grep -q "^series-base: $d/series: " <<<"$err"
	done
	expect_eq "$(sed -n 's/^# base: //p' "$top/patches/series")" "$("$top/tools/build/series-base.sh" "$top/patches/series")" "the shipped series' base"
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

unit_header
ktap_run "check-config names a symbol that did not stick" test_config_dropped_symbol
ktap_run "kernel-tree applies the series, no-op when unchanged" test_tree_applies_series
ktap_run "kernel-tree unpacks a changed tarball again; a missing one names its package" test_tree_new_tarball_unpacked
ktap_run "the series names its base package, once" test_series_base
ktap_run "kernel-tree names a patch that does not apply" test_tree_bad_patch_named
ktap_run "kernel-tree re-applies only from an edited patch" test_tree_edit_reapplies_suffix
ktap_run "kernel-tree: a compile and two makes at once share the tree, locked" test_tree_locked
ktap_run "locked.sh: a second make waits, named; shared holders do not" test_locked_waits
ktap_run "kernel-tree names a missing patch file" test_tree_missing_patch_file
ktap_run "deps without root lists what to install" test_deps_non_root_message
ktap_run "make names a bad ARCH and a missing cross compiler" test_make_bad_arch_and_compiler
ktap_run "make topo=PATH takes spaces and quotes in the path" test_make_topo_path_whole
