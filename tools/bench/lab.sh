#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lab.sh (make bench-lab): the topology lab, measured side by side in one run (warm
# build, TCG, median of BENCH_RUNS, default 3):
#   - topo/bridge.topo per arch: launcher start to first test result, total
#     wall time, and the peak memory (sum of QEMU RSS) of the whole lab;
#   - start-up of three guests against one (time to the first result, which
#     comes only once every node is up and set up): the ratio;
#   - validation of a topology file (median of 50 `lab lint` runs).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${BENCH_RUNS:-3}
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${BENCH_ARCHES:-$(arch_defaults)}
lab=build/host/lab
out=build/bench-lab
mkdir -p "$out"
make -s --no-print-directory host-tools >/dev/null

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# timed_run ARCH TOPO: prints "FIRST TOTAL PEAK_KIB"; fails if the lab does
timed_run() {
	local arch=$1 topo=$2 dir start first='' peak=0 rss pid
	dir=$top/$out/run-$arch-$(basename "$topo" .topo)
	rm -rf "$dir"
	start=$EPOCHREALTIME
	"$lab" run -a "$arch" -b build -r "$dir" "$topo" >"$dir.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		if [ -z "$first" ] && grep -qE '^(not )?ok ' "$dir.out" 2>/dev/null; then
			first=$(echo "$EPOCHREALTIME - $start" | bc)
		fi
		# A QEMU may exit between pgrep and the read of its status: that
		# read fails alone, not the run (set -e, pipefail).
		rss=$(for q in $(pgrep -f "qemu-system.*$dir/" || true); do
			awk '/^VmRSS/ { print $2 }' "/proc/$q/status" 2>/dev/null || true
		done | awk '{ s += $1 } END { print s + 0 }')
		[ "$rss" -le "$peak" ] || peak=$rss
		sleep 0.05
	done
	wait $pid || { echo "bench-lab: $topo on $arch failed, see $dir.out" >&2; exit 2; }
	[ -n "$first" ] || first=$(echo "$EPOCHREALTIME - $start" | bc)
	echo "$first $(echo "$EPOCHREALTIME - $start" | bc) $peak"
}

printf '%-30s %8s %12s %10s %12s\n' lab arch first/s total/s peak/MiB
for arch in $arches; do
	make -s --no-print-directory ARCH="$arch" kernel userland >/dev/null
	for t in topo/bridge.topo tests/topo-bench/one.topo tests/topo-bench/three.topo; do
		firsts=() totals=() peaks=()
		for _ in $(seq "$runs"); do
			read -r f tot p < <(timed_run "$arch" "$t") ||
				{ echo "bench-lab: no figures from $t on $arch" >&2; exit 2; }
			firsts+=("$f") totals+=("$tot") peaks+=("$p")
		done
		f=$(printf '%s\n' "${firsts[@]}" | median)
		printf '%-30s %8s %12.2f %10.2f %12d\n' "$t" "$arch" "$f" \
			"$(printf '%s\n' "${totals[@]}" | median)" \
			$(($(printf '%s\n' "${peaks[@]}" | sort -n | tail -n 1) / 1024))
		eval "first_$(basename "$t" .topo)_$arch=$f"
	done
	printf '%-30s %8s %12.2f\n' "three/one start-up ratio" "$arch" \
		"$(eval echo "\"\$first_three_$arch / \$first_one_$arch\"" | bc -l)"
done

lints=()
for _ in $(seq 50); do
	start=$EPOCHREALTIME
	"$lab" lint topo/bridge.topo
	lints+=("$(echo "($EPOCHREALTIME - $start) * 1000" | bc)")
done
printf '%-30s %8s %12.2f ms\n' "lint topo/bridge.topo" host "$(printf '%s\n' "${lints[@]}" | median)"
