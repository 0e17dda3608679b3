#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-boot.sh: for each arch, the time from launching a guest to the first
# test line it prints, and to QEMU's exit, median of RUNS (default 5) boots
# under TCG.  The payload prints a KTAP header and returns, so this is the
# floor every suite pays before its first test.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${RUNS:-5}
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${BENCH_ARCHES:-$(arch_defaults)}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-8s %10s %14s %14s %10s\n' arch runs first-line/s exit/s initrd/KiB
for arch in $arches; do
	make -s --no-print-directory ARCH="$arch" kernel initramfs host-tools >/dev/null
	initrd=build/$arch/initramfs.cpio
	first=() total=()
	for i in $(seq "$runs"); do
		start=$EPOCHREALTIME
		t_first=
		while IFS= read -r line; do
			[ -n "$t_first" ] || t_first=$EPOCHREALTIME
		done < <(build/host/lab boot -a "$arch" -b build -T 60 \
			-r "build/$arch/runs/bench-boot" /lab/run/first-line 2>/dev/null)
		end=$EPOCHREALTIME
		[ -n "$t_first" ] || { echo "bench-boot: $arch guest printed nothing" >&2; exit 2; }
		first+=("$(echo "$t_first - $start" | bc)")
		total+=("$(echo "$end - $start" | bc)")
	done
	printf '%-8s %10d %14.2f %14.2f %10d\n' "$arch" "$runs" \
		"$(printf '%s\n' "${first[@]}" | median)" \
		"$(printf '%s\n' "${total[@]}" | median)" \
		$(($(stat -c %s "$initrd") / 1024))
done
