#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-image.sh OUT.erofs [--base BASE.cpio] [--dir DIR]... [DEST=SRC]...
#
# One read-only guest image: the Debian userland archive of build-base.sh
# (--base) unpacked, empty directories DIR (the mount points of the payload
# images), and each SRC copied to DEST: a file, or a directory whole (its
# symlinks as they are).  EROFS, uncompressed: the
# guest's kernel reads a block when a program touches it, so boot cost
# does not grow with the image, and there is nothing to decompress under
# TCG.  Reproducible: one timestamp, root owner, a fixed UUID, no xattrs.
set -euo pipefail

prog=build-image
die() { echo "$prog: $*" >&2; exit 1; }
# Modes are the image's, not the builder's: every file readable by all.
umask 022

[ $# -ge 1 ] || die "usage: $0 OUT.erofs [--base BASE.cpio] [--dir DIR]... [DEST=SRC]..."
out=$1
shift
command -v mkfs.erofs >/dev/null || die "mkfs.erofs not found (make deps installs erofs-utils)"
root=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-image.XXXXXX")
trap 'rm -rf "$root" "$out.tmp"' EXIT
root=$(realpath "$root")

# inside PATH DIR: PATH (a --dir, or a DEST= whose DIR is its folder) is a
# plain relative path, and DIR stays in the image through the symlinks the
# base holds (an absolute one resolves on the host's /).
inside() {
	local real
	case /$1/ in
	//* | */../* | */./*) die "$1: a destination is a plain relative path" ;;
	esac
	real=$(realpath -m -- "$root/$2")
	case $real in
	"$root" | "$root"/*) ;;
	*) die "$1: leads out of the image (a symlink in the base)" ;;
	esac
}

while [ $# -gt 0 ]; do
	case $1 in
	--base)
		[ -r "${2:-}" ] || die "${2:-(none)}: no base archive"
		(cd "$root" && cpio --quiet -id --no-absolute-filenames) <"$2" ||
			die "$2: cannot unpack"
		shift 2 ;;
	--dir)
		[ -n "${2:-}" ] || die "--dir needs a directory"
		inside "$2" "$2"
		mkdir -p "$root/$2"
		shift 2 ;;
	*=*)
		dest=${1%%=*} src=${1#*=}
		inside "$dest" "$(dirname "$dest")"
		[ -r "$src" ] || die "$src: not found"
		mkdir -p "$root/$(dirname "$dest")"
		# Replaces what the base has there; never follows its symlinks
		# (the base holds absolute ones: they would point at the host).
		if [ -d "$src" ]; then
			[ ! -e "$root/$dest" ] || die "$dest: a directory is copied only where nothing is"
			cp -R --no-dereference "$src" "$root/$dest"
		else
			cp --remove-destination "$src" "$root/$dest"
		fi
		shift ;;
	*)
		die "$1: expected --base, --dir or DEST=SRC" ;;
	esac
done

# The image's / is this directory (mktemp made it 0700: it would shut
# every non-root process out of the whole guest), and a source file's mode
# is not the image's business: readable by all, writable by root only.
chmod -R u+rwX,go+rX,go-w "$root"

# The UUID spells "netns-lab" in hex: any fixed one keeps the image
# byte-for-byte the same from the same inputs.
mkfs.erofs --quiet -T0 --all-root -x-1 -U 6e65746e-732d-6c61-6200-000000000000 \
	"$out.tmp" "$root" || die "mkfs.erofs failed for $out"
mv "$out.tmp" "$out"
echo "  EROFS   ${out#"$PWD"/}: $(($(stat -c %s "$out") / 1024)) KiB"
