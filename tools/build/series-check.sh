#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh: the kernel must build after every patch of the series,
# on every arch, so that the series bisects.  Each prefix is applied to a
# scratch worktree of build/linux and built into build/series-check/ARCH
# (ccache makes the later prefixes cheap).  Names the first patch that
# breaks a build.  Then the whole series once more per arch with
# CONFIG_L3_NET_NS off (configs/no-l3net.config).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${SERIES_ARCHES:-$(arch_defaults)}
tree=$top/build/linux
work=$top/build/series-check
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series)

rm -rf "$work/src"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$work/src" pristine
trap 'git -C "$tree" worktree remove --force "$work/src" 2>/dev/null || true' EXIT

for i in "${!patches[@]}"; do
	p=${patches[$i]}
	git -C "$work/src" -c user.name=netns-lab -c user.email=netns-lab@localhost \
		am -q "$top/patches/$p" || { echo "series-check: $p does not apply" >&2; exit 1; }
	# Before the patch that adds CONFIG_L3_NET_NS, common.config's
	# CONFIG_L3_NET_NS=y cannot stick.  The config is made afresh for each
	# prefix, so that a symbol a patch adds gets the fragments' value.
	extra=
	grep -q '^config L3_NET_NS$' "$work/src/init/Kconfig" || extra=configs/no-l3net.config
	for arch in $arches; do
		echo "  BUILD   $((i + 1))/${#patches[@]} $p ($arch)"
		rm -f "$work/$arch/.config"
		make -s --no-print-directory ARCH="$arch" KSRC="$work/src" TREE= \
			KOBJ="$work/$arch" EXTRA_FRAGMENTS="$extra" kernel >"$work/$arch.log" 2>&1 ||
			{ tail -n 20 "$work/$arch.log" >&2; echo "series-check: the $arch build breaks at $p" >&2; exit 1; }
	done
done
# The feature must also build when it is switched off.
for arch in $arches; do
	echo "  BUILD   all patches, CONFIG_L3_NET_NS off ($arch)"
	make -s --no-print-directory ARCH="$arch" KSRC="$work/src" TREE= \
		KOBJ="$work/$arch-off" EXTRA_FRAGMENTS=configs/no-l3net.config kernel \
		>"$work/$arch-off.log" 2>&1 ||
		{ tail -n 20 "$work/$arch-off.log" >&2; echo "series-check: the $arch build breaks with CONFIG_L3_NET_NS off" >&2; exit 1; }
done
echo "  OK      ${#patches[@]} patches, each builds on: $arches; also with CONFIG_L3_NET_NS off"
