#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# density.sh (make bench-density): what an isolated service costs to set
# up, hold and tear down, for N = DENSITY_N (default "1 10 100 1000")
# services at once, in one guest of ARCH (default: the first default arch)
# with 2 GiB of memory (DENSITY_MEM), for 1000 services of each case:
#   (a) L3 namespaces, (b) network namespaces behind veth pairs,
#   (c) network namespaces with ipvlan L3S slaves, (d) network namespaces
#   with netkit pairs, (e) plain sockets on the parent's addresses.
# userland/run/bench-density is the guest side and says what each metric
# is.  Two boots: one under QEMU's instruction counting (-icount
# shift=0,sleep=off: the guest clock advances 1 ns an instruction, so a
# time is the work done, repeatable to within about 1%), one without
# (guest time close to wall time).  ICOUNT=1 or ICOUNT=0 runs one of them.
# Medians of the rounds (3 for N up to 10, 1 above), one summary
# line per boot, metric and N:
#   density icount N=100 setup-us a=... b=... c=... d=skip e=... b/a=... c/a=... d/a=... e/a=...
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
prog=bench-density
arch=${ARCH:-$(arch_defaults | cut -d' ' -f1)}
arch_check "$arch" "$prog" || exit 1
accel=${ACCEL:-tcg}
n_list=${DENSITY_N:-1 10 100 1000}
mem=${DENSITY_MEM:-2048}
die() { echo "$prog: $*" >&2; exit 1; }
[[ $n_list =~ ^[0-9]+( [0-9]+)*$ ]] || die "DENSITY_N='$n_list': numbers separated by spaces"
for n in $n_list; do
	{ [ "$n" -ge 1 ] && [ "$n" -le 1000 ]; } || die "DENSITY_N: $n is not 1 to 1000 (the guest's address plan)"
done
case ${ICOUNT:-both} in
1) modes=icount ;;
0) modes=wall ;;
both) modes="icount wall" ;;
*) die "ICOUNT=${ICOUNT}: 1, 0 or unset (both)" ;;
esac
[ "$accel" = tcg ] || modes=wall
work=$top/build/bench-density
mkdir -p "$work"

echo "  BUILD   kernel and userland ($arch)"
make -s --no-print-directory ARCH="$arch" kernel userland host-tools >/dev/null

results=$work/results.$arch
: >"$results"
for mode in $modes; do
	out=$work/run-$arch-$mode
	rm -rf "$out"
	echo "  BOOT    $arch, $mode, N = $n_list (progress: one line a case and N)"
	qemu_opts=
	[ "$mode" = wall ] || qemu_opts="-icount shift=0,sleep=off"
	# The guest's lines as they come: each setup figure is a progress line.
	build/host/lab boot -a "$arch" -b build -k "$accel" -m "$mem" -T 21600 -r "$out" \
		-e "lab.density.n=${n_list// /,}" ${qemu_opts:+-q "$qemu_opts"} \
		/lab/run/bench-density 2>&1 |
		while read -r line; do
			line=${line%$'\r'}
			# shellcheck disable=SC2086 # the line's words
			set -- $line
			case "$1 ${2:-}" in
			"density exec") echo "$mode $*" >>"$results" ;;
			"density "[0-9]*)
				echo "$mode $*" >>"$results"
				case $4 in
				setup-us) echo "          N=$2 ($3): set-up $5 us a service" ;;
				skip) echo "          N=$2 ($3): skipped: ${*:5}" ;;
				esac
				;;
			"bench-density: "*) echo "$line" >&2 ;;
			esac
		done
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] || die "$mode: the guest failed (exit $status; see $out/guest.console.log and $out/results.ktap)"
	tr -d '\r' <"$out/results.ktap" | grep -qx 'density done' ||
		die "$mode: the guest stopped early (see $out)"
done

# The summary: medians of the rounds, case by case, and each case over (a).
echo
echo "bench-density: $arch, $accel, guest of $mem MiB; times in guest microseconds a service"
echo "  (icount: 1 ns an instruction, idle skipped; wall: guest clock under plain TCG)"
for mode in $modes; do
	for n in $n_list; do
		for metric in setup-us teardown-us mem-kib slab-kib leak-kib rr-first rr-last udp-rr-last \
			unconfined-udp-rr unconfined-rr; do
			awk -v mode="$mode" -v n="$n" -v metric="$metric" '
				$1 == mode && $3 == n && $5 == "skip" { skip[$4] = 1 }
				$1 == mode && $3 == n && $5 == metric { v[$4, ++c[$4]] = $6 }
				function median(k,    i, j, t, a) {
					for (i = 1; i <= c[k]; i++) a[i] = v[k, i]
					for (i = 2; i <= c[k]; i++)
						for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
							t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
						}
					return a[int((c[k] + 1) / 2)]
				}
				END {
					for (k in c) any = 1
					if (!any) exit
					line = sprintf("density %s N=%d %s", mode, n, metric)
					for (i = 1; i <= 5; i++) {
						k = substr("abcde", i, 1)
						m[k] = k in c ? median(k) : ""
						line = line sprintf(" %s=%s", k, k in c ? m[k] : k in skip ? "skip" : "-")
					}
					for (i = 2; i <= 5; i++) {
						k = substr("abcde", i, 1)
						if (m[k] != "" && m["a"] != "" && m["a"] + 0 != 0)
							line = line sprintf(" %s/a=%.2f", k, m[k] / m["a"])
					}
					print line
				}' "$results"
		done
	done
done
echo "(unconfined-*: (a) only, the parent's own flow with the N L3 namespaces alive over the same just before)"
for mode in $modes; do
	awk -v mode="$mode" '$1 == mode && $3 == "exec" { line = line sprintf(" %s=%s", $4, $5) }
		END { if (line) print "density " mode " exec-us" line " (the tools'"'"' own start, in every time above)" }' "$results"
done
