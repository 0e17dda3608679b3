#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh: the kernel must build after every patch of the series,
# on every arch, so that the series bisects.  Each prefix is applied to a
# scratch worktree of build/linux and built into build/series-check/ARCH
# (ccache makes the later prefixes cheap).  Names the first patch that
# breaks a build.  Then the whole series once more per arch with
# CONFIG_L3_NET_NS off (configs/no-l3net.config).
#
# A build that passed is remembered in build/series-check/passed, keyed
# by what it was made from: the source tree as applied (git's tree hash
# of the worktree, so the tarball and every patch up to it as git am
# applied them), the config fragments, the arch file, the Makefile's part
# that builds kernels (up to its guests' section), check-config.sh, the
# compilers and linker.  A run that was stopped
# resumes where it stopped; a changed patch re-checks itself and what
# follows.  SERIES_FRESH=1 forgets them.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${SERIES_ARCHES:-$(arch_defaults)}
tree=$top/build/linux
work=$top/build/series-check
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' patches/series)

passed=$work/passed
mkdir -p "$work"
# One run at a time: a second would remove the first one's worktree.
exec 9>"$work/lock"
flock -n 9 || { echo "series-check: another run holds $work/lock" >&2; exit 1; }
[ "${SERIES_FRESH:-0}" != 1 ] || rm -f "$passed"
touch "$passed"

# The key of building the worktree as it is for ARCH with fragment EXTRA
# (called where set -e does not act: every step is checked).
build_key() {
	local arch=$1 extra=$2 cc tree
	cc=$(arch_get "$arch" cross_compile)
	tree=$(git -C "$work/src" rev-parse 'HEAD^{tree}') || return 1
	{
		echo "$arch $extra $tree" &&
			cat "$top/arch/$arch.conf" configs/common.config "configs/$arch.config" \
				${extra:+"$extra"} tools/build/check-config.sh &&
			# The Makefile up to its guests' part: what builds a kernel
			# (a change to the images, labs or benches checks nothing again).
			sed -n '1,/^# -* guests$/p' Makefile &&
			"${cc}gcc" --version | sed -n 1p && gcc --version | sed -n 1p &&
			"${cc}ld" --version | sed -n 1p
	} | sha256sum | cut -c1-32
}

# Builds the worktree as it is with fragment EXTRA into KOBJ$SUFFIX for
# every arch whose inputs did not build before, the arches at once: a
# build's serial parts (configuration, kbuild's walk, the vmlinux links)
# leave a core idle that the other arch's compiler then takes.  WHAT
# names the state in the progress lines.  Variables given to the make
# that runs this script (DEBUG=1, -i, ...) must not reach the builds:
# MAKEFLAGS goes.  Fails naming each arch that breaks and its log.
check_builds() {
	local extra=$1 suffix=$2 what=$3 arch key kobj i rc=0
	local pids=() todo=() keys=()
	for arch in $arches; do
		key=$(build_key "$arch" "$extra") ||
			{ echo "series-check: no key for $what ($arch)" >&2; return 1; }
		if grep -qx "$key" "$passed"; then
			echo "  PASSED  $what ($arch) (built before from the same inputs)"
			continue
		fi
		echo "  BUILD   $what ($arch)"
		kobj=$work/$arch$suffix
		rm -f "$kobj/.config"
		# a process group of its own, for the trap below to stop whole
		setsid env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory ARCH="$arch" \
			KSRC="$work/src" TREE= KOBJ="$kobj" EXTRA_FRAGMENTS="$extra" DEBUG=0 V=0 \
			kernel >"$kobj.log" 2>&1 &
		pids+=("$!") todo+=("$arch") keys+=("$key")
	done
	for i in "${!pids[@]}"; do
		if wait "${pids[$i]}"; then
			echo "${keys[$i]}" >>"$passed"
		else
			tail -n 20 "$work/${todo[$i]}$suffix.log" >&2
			echo "series-check: the ${todo[$i]} build breaks: $what (log: $work/${todo[$i]}$suffix.log)" >&2
			rc=1
		fi
	done
	return $rc
}

# The builds of a run that is stopped stop with it, each process group
# whole (the locks' flock and the compilers too), before their tree goes.
clean_up() {
	local job
	for job in $(jobs -p); do
		kill -TERM -- "-$job" 2>/dev/null || true
	done
	wait
	git -C "$tree" worktree remove --force "$work/src" 2>/dev/null || true
}
trap clean_up EXIT
# A signal ends the run through the EXIT trap too (after the command it
# came during): no worktree left.
trap 'exit 130' INT TERM HUP
rm -rf "$work/src"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$work/src" pristine

for i in "${!patches[@]}"; do
	p=${patches[$i]}
	git -C "$work/src" -c user.name=netns-lab -c user.email=netns-lab@localhost \
		am -q "$top/patches/$p" || { echo "series-check: $p does not apply" >&2; exit 1; }
	# Before the patch that adds CONFIG_L3_NET_NS, common.config's
	# CONFIG_L3_NET_NS=y cannot stick.  The config is made afresh for each
	# prefix, so that a symbol a patch adds gets the fragments' value.
	extra=
	grep -q '^config L3_NET_NS$' "$work/src/init/Kconfig" || extra=configs/no-l3net.config
	check_builds "$extra" "" "$((i + 1))/${#patches[@]} $p" || exit 1
done
# The feature must also build when it is switched off.
check_builds configs/no-l3net.config -off "all patches, CONFIG_L3_NET_NS off" || exit 1
echo "  OK      ${#patches[@]} patches, each builds on: $arches; also with CONFIG_L3_NET_NS off"
