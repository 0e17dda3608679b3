#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh (make bench-boot): for each arch, side by side, interleaved, BENCH_RUNS (default
# 5) boots under TCG of
#   lab     a lab guest: the time from launching `lab boot` to the first
#           line its command prints (the payload prints a KTAP header and
#           returns), and to QEMU's exit: the floor every suite pays;
#   padded  the same with 20 MiB more in the userland image, which nothing
#           reads: boot cost must not grow with the userland;
#   floor   the same kernel and QEMU command line with no disk and nothing
#           but floor-init as /init (an initramfs): the time from launching
#           QEMU to the one line it prints on the console, what the kernel
#           alone costs.  (The lab guest's clock starts at the launcher, so
#           its own start-up, a few ms, is in the ratio.)
# Medians (the ratio: of each round's first-line/floor), and one closing
# line per arch: ARCH first-line/floor RATIO.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${BENCH_RUNS:-5}
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${BENCH_ARCHES:-$(arch_defaults)}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One boot of the floor: QEMU as lab boot would start it, without its
# disks, floor.cpio as its initramfs; prints the seconds to the console line.
floor_once() {
	local arch=$1 dir cmd start
	dir=build/$arch/runs/bench-floor
	rm -rf "$dir"
	mkdir -p "$dir"
	cmd=$(build/host/lab boot -n -a "$arch" -b build -r "$dir" true |
		grep -v -e '^#' -e '^ *-drive ' -e '^ *-device virtio-blk-pci,')
	[[ $cmd = *" -kernel "* ]] || { echo "bench-boot: no -kernel in: $cmd" >&2; exit 2; }
	cmd=${cmd/" -kernel "/" -initrd build/$arch/floor.cpio -kernel "}
	: >"$dir/guest.console.log"
	start=$EPOCHREALTIME
	# exec: $! is QEMU itself, which the trap stops whatever happens (a
	# global: the trap runs when this subshell exits, after the function).
	eval "exec $cmd" >"$dir/qemu.log" 2>&1 &
	floor_qemu=$!
	trap 'kill $floor_qemu 2>/dev/null || true' EXIT
	# tail -F wakes on inotify, not on a poll that would load the host
	# while the guest boots; it ends with QEMU.
	if ! timeout 60 grep -q -m1 'floor: init ran' \
		< <(tail -F -n +1 --pid=$floor_qemu "$dir/guest.console.log" 2>/dev/null); then
		echo "bench-boot: the $arch floor printed nothing in 60 s (see $dir)" >&2
		exit 2
	fi
	echo "$EPOCHREALTIME - $start" | bc
}

# One boot of a lab guest from BUILD's images: "FIRST-LINE EXIT" in seconds.
lab_once() {
	local arch=$1 build=$2 start t_first='' end
	start=$EPOCHREALTIME
	while IFS= read -r _; do
		[ -n "$t_first" ] || t_first=$EPOCHREALTIME
	done < <(build/host/lab boot -a "$arch" -b "$build" -T 60 \
		-r "build/$arch/runs/bench-boot" /lab/run/first-line 2>/dev/null)
	end=$EPOCHREALTIME
	[ -n "$t_first" ] || { echo "bench-boot: $arch guest printed nothing" >&2; exit 2; }
	echo "$(echo "$t_first - $start" | bc) $(echo "$end - $start" | bc)"
}

printf '%-8s %5s %14s %10s %9s %9s %8s %13s\n' arch runs first-line/s exit/s padded/s \
	floor/s ratio userland/KiB
ratios=()
for arch in $arches; do
	make -s --no-print-directory ARCH="$arch" kernel userland userland-padded floor host-tools \
		>/dev/null
	# The padded guest's build folder: the same kernel, the padded root.
	padded=build/bench-boot
	rm -rf "${padded:?}/$arch"
	mkdir -p "$padded/$arch"
	ln -s "$top/build/$arch/kernel" "$padded/$arch/kernel"
	ln -s "$top/build/$arch/userland-padded.erofs" "$padded/$arch/userland.erofs"
	first=() total=() pad=() floor=() pair=()
	for _ in $(seq "$runs"); do
		times=$(lab_once "$arch" build)
		first+=("${times% *}")
		total+=("${times#* }")
		times=$(lab_once "$arch" "$padded")
		pad+=("${times% *}")
		times=$(floor_once "$arch")
		floor+=("$times")
		pair+=("$(echo "scale=4; ${first[-1]} / $times" | bc)")
	done
	f=$(printf '%s\n' "${first[@]}" | median)
	fl=$(printf '%s\n' "${floor[@]}" | median)
	# The ratio is the median of each round's lab/floor: the host's speed
	# drifts by a third within minutes, and a round's three boots are
	# seconds apart, so each pair sees the same host.
	ratio=$(printf '%s\n' "${pair[@]}" | median)
	printf '%-8s %5d %14.2f %10.2f %9.2f %9.2f %8.2f %13d\n' "$arch" "$runs" "$f" \
		"$(printf '%s\n' "${total[@]}" | median)" \
		"$(printf '%s\n' "${pad[@]}" | median)" "$fl" "$ratio" \
		$(($(stat -c %s "build/$arch/userland.erofs") / 1024))
	ratios+=("$arch first-line/floor $(printf '%.2f' "$ratio")")
done
printf '%s\n' "${ratios[@]}"
