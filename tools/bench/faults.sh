#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh (make bench-faults): how close the wires' faults come to what they are set
# to, measured side by side in one run.
#
#   relay    FRAMES (default 10,000) timestamped frames, one a millisecond,
#            from one node to another through the launcher, the nodes being
#            tests/host/fake-qemu (no guest: the relay alone is measured):
#            a plain relayed wire (a lan of two: the relay's own latency
#            and jitter), delay=10ms, loss=1%, loss=20%, delay=10ms
#            jitter=2ms.  Reports frames delivered and the delay
#            percentiles, against the set values.
#   rate     a TCP stream (tcpbench) between two ARCH guests across a link
#            with rate=10mbit, measured at the receiving NIC (rx_bytes
#            over 10 s, frame bytes: what rate= paces), against the rate.
#
# A link with no impairment is not relayed at all (QEMU to QEMU, as
# before): its cost is unchanged by construction (tests/lab-argv).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
frames=${FRAMES:-10000}
arch=${ARCH:-x86_64}
work=$top/build/bench-faults
lab=$top/build/host/lab

make -s --no-print-directory host-tools >/dev/null
rm -rf "$work"
# shellcheck source=tests/lib/fake-arch.sh
. "$top/tests/lib/fake-arch.sh"
fake_arch_into "$work" "$top"

# One relay case: WIRE (a link or lan line for a:eth1 and b:eth1); prints
# "delivered LOSS% p50 p90 p99 max".
relay_case() {
	local wire=$1 out received
	printf 'node a arch=toy\nnode b arch=toy\n%s\ntest "send" a: send\ntest "report" b: report\n' \
		"$wire" >"$work/case.topo"
	out=$(FAKE_FRAMES=$frames LAB_TOP=$work "$lab" run -b "$work/build" -r "$work/run" \
		"$work/case.topo" 2>&1) ||
		{ echo "bench-faults: the relay case '$wire' failed: $out" >&2; exit 2; }
	# Test 2 of the KTAP numbering (after the two setups) is b's report.
	received=$(cat "$work/run/test-4.log")
	[[ $received = received* ]] || { echo "bench-faults: no report for '$wire': $out" >&2; exit 2; }
	awk -v n="$frames" '{ printf "%6d %7.2f%% %8.3f %8.3f %8.3f %8.3f\n",
		$2, 100 * (1 - $2 / n), $5, $7, $9, $11 }' <<<"$received"
}

echo "relay: $frames frames of 100 bytes, one a millisecond, a -> b (fake guests)"
printf '%-32s %6s %8s %8s %8s %8s %8s\n' wire got lost p50/ms p90/ms p99/ms max/ms
while IFS='|' read -r label wire; do
	result=$(relay_case "$wire") || exit 2
	printf '%-32s %s\n' "$label" "$result"
done <<'CASES'
relayed, no fault|lan l a:eth1 b:eth1
delay=10ms|link a:eth1 b:eth1 delay=10ms
loss=1%|link a:eth1 b:eth1 loss=1%
loss=20%|link a:eth1 b:eth1 loss=20%
delay=10ms jitter=2ms|link a:eth1 b:eth1 delay=10ms jitter=2ms
CASES
echo
echo "rate: a TCP stream (tcpbench, 20 s) between $arch guests, link rate=10mbit,"
echo "      measured at the receiver's NIC (rx_bytes) over 10 s of it"
make -s --no-print-directory ARCH="$arch" kernel userland >/dev/null
cat >"$work/rate.topo" <<'TOPO'
node a
    ip addr add 10.0.0.1/24 dev eth1
    tcpbench server 5001 </dev/null >/dev/null 2>&1 &
node b
    ip addr add 10.0.0.2/24 dev eth1
link a:eth1 b:eth1 rate=10mbit
test "a answers" until=20 b: ping -c 1 -W 1 10.0.0.1
test "stream for 20 s" b: tcpbench stream 10.0.0.1 5001 20 </dev/null >/dev/null 2>&1 &
test "wire rate" timeout=30 a: sleep 3; f=/sys/class/net/eth1/statistics/rx_bytes; r1=$(cat $f); t1=$(cut -d' ' -f1 /proc/uptime); sleep 10; r2=$(cat $f); t2=$(cut -d' ' -f1 /proc/uptime); awk -v b=$((r2 - r1)) -v s="$t1" -v e="$t2" 'BEGIN { printf "%.4f\n", b * 8 / (e - s) / 1e6 }'
TOPO
out=$("$lab" run -a "$arch" -r "$work/rate-run" "$work/rate.topo" 2>&1) ||
	{ echo "bench-faults: the rate lab failed: $out" >&2; exit 2; }
mbit=$(cat "$work/rate-run/test-5.log")
awk -v m="$mbit" 'BEGIN {
	printf "wire rate %.3f Mbit/s: %.3f of rate=10mbit; TCP goodput at most %.2f Mbit/s (1448 of 1514 bytes a frame)\n",
		m, m / 10, m * 1448 / 1514 }'
