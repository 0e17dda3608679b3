#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-overlay.sh OUT.cpio DEST=SRC...
#
# The lab's own part of the guest (/init, /lab/run payloads, /lab/tests,
# /lab/bin, /lab/kselftests): each SRC file is copied to DEST inside the
# archive.  The kernel unpacks it over the Debian base archive.
set -euo pipefail

prog=build-overlay
out=$1
shift
root=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-overlay.XXXXXX")
trap 'rm -rf "$root"' EXIT

for pair in "$@"; do
	dest=${pair%%=*} src=${pair#*=}
	[ -r "$src" ] || { echo "$prog: $src: not found" >&2; exit 1; }
	mkdir -p "$root/$(dirname "$dest")"
	cp "$src" "$root/$dest"
done

find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
