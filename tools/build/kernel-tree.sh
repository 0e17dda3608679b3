#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-tree.sh TARBALL TREE SERIES_DIR [PACKAGE]
#
# Keeps TREE a git checkout of Debian's linux-source with patches/series
# applied on top of one pristine commit.  Only the part of the series that
# changed since the last run is re-applied, so editing one patch rewrites only
# the files that patch and its successors touch (and kbuild/ccache rebuild
# just those).  A patch that does not apply is named, and the tree is put back
# to the last good state (pristine plus the patches before it), never left
# half-patched.  A tarball that changed (another base, or Debian's update of
# the package) is unpacked again.  PACKAGE, the Debian package of TARBALL,
# is named when the tarball is missing.
set -euo pipefail

prog=kernel-tree
die() { echo "$prog: $*" >&2; exit 1; }

[ $# -eq 3 ] || [ $# -eq 4 ] || die "usage: $0 TARBALL TREE SERIES_DIR [PACKAGE]"
tarball=$1 tree=$2 series_dir=$3 package=${4:-}
state=$tree/.git/netns-lab-applied	# lines: "<sha256 of patch> <commit>"
pristine=$tree/.git/netns-lab-pristine	# the tarball unpacked: path, size, time

[ -r "$tarball" ] || die "$tarball: not found${package:+ (apt-get install $package, or make deps)}"
tarball_id="$(realpath "$tarball") $(stat -c '%s %.9Y' "$tarball")"

# No background "git gc --auto": it would hold the tree's lock (fd 9)
# after this script ends.
git_tree() {
	git -C "$tree" -c user.name=netns-lab -c user.email=netns-lab@localhost -c gc.auto=0 \
		-c advice.detachedHead=false "$@"
}

# Two makes at once (a second `make run`, a `make kernel` for the other
# arch beside make check) share this tree: it is read under a shared flock on TREE.lock
# (this check, and every kbuild run, see KMAKE in the Makefile) and changed
# under an exclusive one, so it never changes under a compile.  Converting
# the lock lets go of it first, so two converting makes cannot deadlock;
# whoever gets it second finds the work done.
lock_tree() {	# lock_tree -s|-x
	flock -n "$1" 9 && return
	echo "netns-lab: waiting for another make that holds $tree.lock" >&2
	flock "$1" 9
}
mkdir -p "$(dirname "$tree")"
exec 9>>"$tree.lock"
lock_tree -s

unpacked() {
	git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1 &&
		[ "$(cat "$pristine" 2>/dev/null)" = "$tarball_id" ]
}

# A tree unpacked before the tarball was recorded: its pristine commit
# names the tarball it came from.
if [ ! -f "$pristine" ] && git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1 &&
	[ "$(git -C "$tree" log -1 --format=%s pristine)" = "pristine $(basename "$tarball")" ]; then
	lock_tree -x
	[ -f "$pristine" ] || echo "$tarball_id" >"$pristine"
fi

unpacked || lock_tree -x
if ! unpacked; then
	echo "  TREE    unpacking $(basename "$tarball") into $tree"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	git -C "$tree.tmp" init -q
	# Fixed dates make the pristine commit id the same on every machine.
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tree.tmp" -c user.name=netns-lab -c user.email=netns-lab@localhost \
		-c core.autocrlf=false -c gc.auto=0 add -A -f
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tree.tmp" -c user.name=netns-lab -c user.email=netns-lab@localhost \
		-c gc.auto=0 commit -q -m "pristine $(basename "$tarball")"
	git -C "$tree.tmp" tag pristine
	echo "$tarball_id" >"$tree.tmp/.git/netns-lab-pristine"
	mv "$tree.tmp" "$tree"
	: >"$state"
fi

[ -f "$state" ] || : >"$state"

# Patches named by the series file, in order; '#' starts a comment.
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series_dir/series")

for p in "${patches[@]}"; do
	[ -r "$series_dir/$p" ] || die "$series_dir/series: $p: no such patch file"
done

# Keep the longest prefix of the series that is applied already: its
# length in keep, its last commit in base; true if that is all of it.
applied_already() {
	local p sum line head want

	mapfile -t applied < "$state"
	keep=0 base=pristine
	for p in "${patches[@]}"; do
		sum=$(sha256sum <"$series_dir/$p" | cut -d' ' -f1)
		line=${applied[$keep]:-}
		[ "${line%% *}" = "$sum" ] || break
		base=${line#* }
		keep=$((keep + 1))
	done
	head=$(git_tree rev-parse HEAD)
	want=$(git_tree rev-parse "$base^{commit}")
	[ "$keep" -eq "${#patches[@]}" ] && [ "$keep" -eq "${#applied[@]}" ] &&
		[ "$head" = "$want" ] && git_tree diff --quiet HEAD
}

applied_already && exit 0
lock_tree -x
applied_already && exit 0

git_tree am --abort >/dev/null 2>&1 || true
# reset --hard only rewrites files that differ, so untouched files keep
# their timestamps and kbuild does not recompile them.
git_tree reset -q --hard "$base"
git_tree clean -q -fdx -e /.git
printf '%s\n' "${applied[@]:0:$keep}" >"$state.tmp"
[ "$keep" -gt 0 ] || : >"$state.tmp"

for p in "${patches[@]:$keep}"; do
	echo "  AM      $p"
	if ! git_tree am -q --keep-cr --committer-date-is-author-date "$(realpath "$series_dir/$p")" >"$tree/.git/am.log" 2>&1; then
		git_tree am --abort >/dev/null 2>&1 || true
		git_tree reset -q --hard HEAD
		mv "$state.tmp" "$state"
		sed -e 's/^/    /' "$tree/.git/am.log" >&2
		die "$series_dir/$p does not apply to $(git_tree describe --tags --always HEAD); tree left at the patch before it"
	fi
	echo "$(sha256sum <"$series_dir/$p" | cut -d' ' -f1) $(git_tree rev-parse HEAD)" >>"$state.tmp"
done
mv "$state.tmp" "$state"
