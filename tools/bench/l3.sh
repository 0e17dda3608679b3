#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# l3.sh (make bench-l3): the cost of L3 network namespaces, measured side by side in
# one run (ARCH, default: the first default arch).  Inside one guest,
# TCP request/response rate and stream throughput, and UDP
# request/response rate over a connected socket and with sendto() from
# an unbound one (the server
# answering with sendto() to the source), over IPv4 and over IPv6, all
# from tools/bench/tcpbench,
# from an unconfined client to a server that is
#   (a) unconfined, (b) inside an L3 namespace, (c) inside a network
#   namespace behind a veth pair with routing in the parent;
# and (d) case (a) on a kernel built without the series against the series
# kernel with no L3 namespace created, BOOTS boots of each, alternating.
# Medians of all rounds; targets: (b)/(a) >= 0.97 and (d) >= 0.99 for
# every metric, (b) > (c) for TCP.  The guest side is userland/run/bench-l3; a metric
# it fails to measure in any round ends the run with the guest's error.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arch=${ARCH:-$(arch_defaults | cut -d' ' -f1)}
arch_check "$arch" bench-l3 || exit 1
accel=${ACCEL:-tcg}
boots=${BOOTS:-2}
tree=$top/build/linux
work=$top/build/bench-l3
die() { echo "bench-l3: $*" >&2; exit 1; }

echo "  BUILD   series kernel and userland ($arch)"
make -s --no-print-directory ARCH="$arch" kernel userland host-tools >/dev/null
# The L3 series starts at the first patch below the "# L3 network
# namespaces" line of patches/series; kernel-tree.sh records the commit of
# each applied patch, in order.
before=$(awk '/^# L3 network namespaces/ { exit } /^[^#]/ { n++ } END { print n + 0 }' patches/series)
grep -q '^# L3 network namespaces' patches/series || die "patches/series has no '# L3 network namespaces' line"
first_l3=$(sed -n "$((before + 1))p" "$tree/.git/netns-lab-applied" | cut -d' ' -f2)
[ -n "$first_l3" ] || die "the L3 series is not applied to $tree (make tree)"

# The baseline: the same tree and config, without the L3 series.
echo "  BUILD   baseline kernel: the tree before the L3 series ($arch)"
# Kept between runs: a fresh checkout would make kbuild rebuild everything.
if [ "$(git -C "$work/src" rev-parse HEAD 2>/dev/null)" != "$(git -C "$tree" rev-parse "$first_l3^")" ]; then
	rm -rf "$work/src"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$work/src" "$first_l3^"
fi
make -s --no-print-directory ARCH="$arch" KSRC="$work/src" TREE= KOBJ="$work/$arch" \
	EXTRA_FRAGMENTS=configs/no-l3net.config kernel >"$work/$arch.log" 2>&1 ||
	{ tail -n 20 "$work/$arch.log" >&2; die "baseline kernel build failed"; }

series=$(arch_kernel_image "$arch" "build/$arch/kernel")
base=$(arch_kernel_image "$arch" "$work/$arch")
results=$work/results.$arch
: >"$results"

# Under TCG, wall-clock rates swing by +-25% from round to round.  With
# QEMU's instruction counting the guest clock advances 1 ns per guest
# instruction, so a rate in guest time measures the CPU cost of the code
# path, and repeats to within a few per mille.  ICOUNT=0: wall clock.
icount=${ICOUNT:-1}
qemu_opts=
[ "$icount" = 0 ] || [ "$accel" != tcg ] || qemu_opts="-icount shift=0,sleep=off"

rounds=9
metrics="rr stream udp-rr udp-sendto rr6 stream6 udp-rr6 udp-sendto6"

# boot LABEL KERNEL CASES: one guest's numbers into $results.  A round
# that printed no number is an error, not a gap in a median: the guest's
# own words (tcpbench's error, say) are in its results file.
boot() {
	local out=$work/run-$arch-$1 c k m n
	echo "  BOOT    $1 (cases $3)"
	rm -rf "$out"
	build/host/lab boot -a "$arch" -b build -k "$accel" -K "$2" -T 3600 \
		-e "lab.bench=$3 lab.bench.rounds=$rounds" ${qemu_opts:+-q "$qemu_opts"} -r "$out" \
		/lab/run/bench-l3 >/dev/null || die "$1: the guest failed (see $out/guest.console.log)"
	# Lines may end in \r\n (a tty's); the agent's pipe ends them in \n.
	awk -v label="$1" '{ sub(/\r$/, "") }
		$1 == "bench" && $2 ~ /^[abc]$/ && $4 ~ /^[0-9.]+$/ { print label, $2, $3, $4 }' \
		"$out/results.ktap" >>"$results"
	for ((k = 0; k < ${#3}; k++)); do
		c=${3:k:1}
		for m in $metrics; do
			n=$(awk -v l="$1" -v c="$c" -v m="$m" '$1 == l && $2 == c && $3 == m' "$results" | wc -l)
			[ "$n" -eq "$rounds" ] ||
				die "$1: case $c $m: $n of $rounds rounds measured: $(tr -d '\r' <"$out/results.ktap" | grep -m1 -v '^bench' || echo 'no error printed') (see $out/results.ktap)"
		done
	done
}

boot series "$series" abc
for i in $(seq "$boots"); do
	boot "base-$i" "$base" a
	boot "unused-$i" "$series" a
done

median() {	# median LABEL-PATTERN CASE METRIC (boot made sure there are some)
	awk -v l="$1" -v c="$2" -v m="$3" '$1 ~ l && $2 == c && $3 == m { print $4 }' "$results" |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.3f", y ? x / y : 0 }'; }
verdict() { awk -v r="$1" -v t="$2" -v op="$3" 'BEGIN {
	ok = op == ">=" ? r >= t : r > t; print ok ? "met" : "NOT met" }'; }

printf '\nbench-l3: %s, %s%s, %s rounds of 0.5 s per case and boot, medians\n' "$arch" "$accel" \
	"${qemu_opts:+ with $qemu_opts (rates in guest time)}" "$rounds"
row() {	# row DESCRIPTION LABEL-PATTERN CASE SUFFIX: one line of a table
	printf '%-48s %12s %14s %14s %14s\n' "$1" "$(median "$2" "$3" "rr$4")" \
		"$(median "$2" "$3" "stream$4")" "$(median "$2" "$3" "udp-rr$4")" \
		"$(median "$2" "$3" "udp-sendto$4")"
}
for family in IPv4 IPv6; do
	suffix=${family#IPv4}
	suffix=${suffix:+6}
	printf '%-48s %12s %14s %14s %14s\n' "case ($family)" "rr (trans/s)" "stream (MiB/s)" \
		"udp rr (t/s)" "udp sendto (t/s)"
	row "(a) server unconfined" '^series$' a "$suffix"
	row "(b) server in an L3 namespace" '^series$' b "$suffix"
	row "(c) server in a netns behind veth (L2 way)" '^series$' c "$suffix"
	row "(a) on the kernel without the series" '^base-' a "$suffix"
	row "(a) on the series kernel, no L3 namespace" '^unused-' a "$suffix"
	echo
done
for m in $metrics; do
	ba=$(ratio "$(median '^series$' b "$m")" "$(median '^series$' a "$m")")
	bc=$(ratio "$(median '^series$' b "$m")" "$(median '^series$' c "$m")")
	d=$(ratio "$(median '^unused-' a "$m")" "$(median '^base-' a "$m")")
	e=$(ratio "$(median '^series$' a "$m")" "$(median '^unused-' a "$m")")
	# (b) > (c) is a TCP target: over UDP the veth path is the faster one
	# on the kernel without the series too, so it says nothing of L3.
	case $m in
	udp-*) bc_verdict="no target" ;;
	*) bc_verdict="target > 1: $(verdict "$bc" 1 '>')" ;;
	esac
	printf '%-11s (b)/(a) %s (target >= 0.97: %s)  (b)/(c) %s (%s)  (d) %s (target >= 0.99: %s)  (e) %s\n' \
		"$m" "$ba" "$(verdict "$ba" 0.97 '>=')" "$bc" "$bc_verdict" "$d" "$(verdict "$d" 0.99 '>=')" "$e"
done
echo "(e): (a) with an L3 namespace alive / (a) on the series kernel with none: what an unconfined flow pays"
echo "     while L3 namespaces exist (the static key on), in another boot; no target."
