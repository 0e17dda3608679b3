#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Host-side unit tests of the guest image builder (userland/build-image.sh):
# reproducible, readable by all, nothing written outside the image.
set -uo pipefail

# shellcheck source=tests/lib/unit.sh
. "$(dirname "$0")/../lib/unit.sh"

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
		(umask 077 && "$top/userland/build-image.sh" "$d/$out.erofs" --base "$d/base.cpio" \
			--dir lab/kselftests lab/run/x="$d/payload" >/dev/null) ||
			fail "build-image.sh failed"
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
	(umask 077 && "$top/userland/build-image.sh" "$d/l.erofs" --base "$d/base.cpio" \
		bin/link="$d/payload" >/dev/null) || fail "build-image.sh over a symlink failed"
	[ ! -e "$d/outside" ] || fail "build-image.sh wrote through the base's symlink"
	dump.erofs --path=/bin/link "$d/l.erofs" | grep -q 'regular file' || fail "bin/link not replaced"
	rc=0
	out=$("$top/userland/build-image.sh" "$d/c.erofs" ../up="$d/payload" 2>&1) || rc=$?
	expect_eq "1 build-image: ../up: a destination is a plain relative path" "$rc $out" "a destination outside the image"
	rc=0
	out=$("$top/userland/build-image.sh" "$d/c.erofs" --dir ../up 2>&1) || rc=$?
	expect_eq "1 build-image: ../up: a destination is a plain relative path" "$rc $out" "a --dir outside the image"
	# a folder the base has as a symlink out of the image: refused
	mkdir -p "$d/hostdir"
	ln -s "$d/hostdir" "$d/base/etc"
	(cd "$d/base" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$d/base.cpio"
	for arg in etc/x="$d/payload" "--dir etc/sub"; do
		rc=0
		# shellcheck disable=SC2086 # "--dir DIR": two words
		out=$("$top/userland/build-image.sh" "$d/c.erofs" --base "$d/base.cpio" $arg 2>&1) || rc=$?
		expect_eq 1 $rc "exit status for $arg through a symlink"
		[[ $out = *"leads out of the image"* ]] || fail "$arg through a symlink: $out"
	done
	[ -z "$(ls "$d/hostdir")" ] || fail "build-image.sh wrote through a folder symlink"

	rc=0
	out=$("$top/userland/build-image.sh" "$d/c.erofs" lab/y="$d/nosuch" 2>&1) || rc=$?
	expect_eq 1 $rc "exit status for a missing file"
	expect_eq "build-image: $d/nosuch: not found" "$out" "message for a missing file"
	{ [ ! -e "$d/c.erofs" ] && [ ! -e "$d/c.erofs.tmp" ]; } || fail "an image was left after an error"

	# a directory is copied whole, its symlinks as they are, and only
	# where the base has nothing (netselftests takes selftests/net so)
	mkdir -p "$d/tree/sub"
	echo t >"$d/tree/sub/file"
	ln -s /proc/self/fd "$d/tree/fd"
	"$top/userland/build-image.sh" "$d/t.erofs" --base "$d/base.cpio" tests="$d/tree" >/dev/null ||
		fail "build-image.sh with a directory failed"
	dump.erofs --path=/tests/sub/file "$d/t.erofs" | grep 'regular file' >/dev/null || fail "the tree's file is not in the image"
	dump.erofs --path=/tests/fd "$d/t.erofs" | grep symlink >/dev/null || fail "the tree's symlink was followed"
	rc=0
	out=$("$top/userland/build-image.sh" "$d/c.erofs" --base "$d/base.cpio" bin="$d/tree" 2>&1) || rc=$?
	expect_eq "1 build-image: bin: a directory is copied only where nothing is" "$rc $out" "a directory over the base's"
}

unit_header
ktap_run "a guest image is reproducible, readable by all, root-owned; no write outside" test_image_builder
