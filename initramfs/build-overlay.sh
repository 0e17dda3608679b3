#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-overlay.sh OUT.cpio FILE... -- KSELFTEST...
#
# The lab's own part of the guest: /init, the payloads (/lab/run), the test
# scripts (/lab/tests) and the static test programs (/lab/kselftests).  The
# kernel unpacks it over the Debian base archive.
set -euo pipefail

prog=build-overlay
out=$1
shift
root=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-overlay.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/lab/run" "$root/lab/tests" "$root/lab/kselftests"

dest=files
for f in "$@"; do
	if [ "$f" = -- ]; then
		dest=kselftests
		continue
	fi
	[ -r "$f" ] || { echo "$prog: $f: not found" >&2; exit 1; }
	case $dest:$f in
	files:initramfs/init) cp "$f" "$root/init" ;;
	files:initramfs/run/*) cp "$f" "$root/lab/run/" ;;
	files:*) cp "$f" "$root/lab/tests/" ;;
	kselftests:*) cp "$f" "$root/lab/kselftests/" ;;
	esac
done

find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
