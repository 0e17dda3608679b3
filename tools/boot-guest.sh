#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-guest.sh [options] ARCH KERNEL INITRD PAYLOAD RUNDIR
#
# Boots one guest that runs /lab/run/PAYLOAD, streams what the payload
# prints on its results port (a virtio console) to stdout, and keeps the
# kernel console in RUNDIR/console.log.  The guest has two virtio NICs,
# eth1 and eth2, joined back to back by a pair of unix datagram sockets.
#
# Options: -t SECONDS  outer timeout (default 300)
#          -a ACCEL    tcg (default) or kvm
#          -m MIB      guest memory (default 256)
#          -s CPUS     vCPUs (default 1)
#          -c ARGS     more kernel command line (lab.bench=a, say)
#          -q ARGS     more QEMU options, split at spaces (-icount ..., say)
#
# Exit: 0 the payload ran to its end, 2 the guest failed (panic, timeout,
# QEMU error); the cause is named on stderr.  QEMU never outlives this
# script, whatever ends it.
set -euo pipefail

prog=boot-guest
die() { echo "$prog: $*" >&2; exit 2; }

timeout=300 accel=tcg mem=256 cpus=1 extra= qemu_extra=
while getopts t:a:m:s:c:q: opt; do
	case $opt in
	t) timeout=$OPTARG ;;
	a) accel=$OPTARG ;;
	m) mem=$OPTARG ;;
	s) cpus=$OPTARG ;;
	c) extra=$OPTARG ;;
	q) qemu_extra=$OPTARG ;;
	*) die "usage: $0 [-t SECONDS] [-a ACCEL] [-m MIB] [-s CPUS] [-c ARGS] [-q ARGS] ARCH KERNEL INITRD PAYLOAD RUNDIR" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 5 ] || die "usage: $0 [-t SECONDS] [-a ACCEL] [-m MIB] [-s CPUS] [-c ARGS] [-q ARGS] ARCH KERNEL INITRD PAYLOAD RUNDIR"
arch=$1 kernel=$2 initrd=$3 payload=$4 run=$5

[ -r "$kernel" ] || die "$kernel: no kernel image (make kernel ARCH=$arch)"
[ -r "$initrd" ] || die "$initrd: no initramfs (make initramfs ARCH=$arch)"

# shellcheck source=tools/arch.sh
. "$(dirname "$0")/arch.sh"
arch_check "$arch" "$prog" || exit 2
qemu=$(arch_get "$arch" qemu)
machine=(-M "$(arch_get "$arch" machine)")
cpu=$(arch_get "$arch" cpu)
[ -z "$cpu" ] || machine+=(-cpu "$cpu")
command -v $qemu >/dev/null || die "$qemu not found (make deps)"
case $accel in
tcg) ;;
kvm) [ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is not usable" ;;
*) die "unknown ACCEL '$accel' (tcg or kvm)" ;;
esac

mkdir -p "$run"
rm -f "$run"/wire*.sock "$run/console.log"
macs=(52:54:00:6c:61:01 52:54:00:6c:61:02)
configs=$(cd "$(dirname "$0")/../configs" && pwd)
cmdline="$(grep -hv '^#' "$configs/common.cmdline" | xargs) $(arch_get "$arch" cmdline) lab.run=$payload${extra:+ $extra}"
cmdline+=" lab.if.eth1=${macs[0]} lab.if.eth2=${macs[1]}"
wire() {	# wire ID LOCAL REMOTE
	echo "dgram,id=$1,local.type=unix,local.path=$run/$2,remote.type=unix,remote.path=$run/$3"
}

# One core per socket: the lab's x86_64 kernels have no ACPI, and the MP
# table SeaBIOS writes lists only the first core of each socket.
cmd=("$qemu" "${machine[@]}" -accel "$accel" -m "$mem" -smp "$cpus,sockets=$cpus,cores=1"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-chardev "file,id=console,path=$run/console.log" -serial chardev:console
	-device virtio-serial-pci -chardev "file,id=results,path=$run/results.ktap,append=on"
	-device virtconsole,chardev=results
	-netdev "$(wire n1 wire1.sock wire2.sock)" -device "virtio-net-pci,netdev=n1,mac=${macs[0]}"
	-netdev "$(wire n2 wire2.sock wire1.sock)" -device "virtio-net-pci,netdev=n2,mac=${macs[1]}")
# shellcheck disable=SC2206 # split on purpose
[ -z "$qemu_extra" ] || cmd+=($qemu_extra)
printf '%q ' "${cmd[@]}" >"$run/qemu.cmdline"
echo >>"$run/qemu.cmdline"

pid=
cleanup() {
	[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
	rm -f "$run"/wire*.sock
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

: >"$run/results.ktap"
timeout -k 2 "$timeout" "${cmd[@]}" </dev/null >/dev/null 2>"$run/qemu.err" &
pid=$!
tail -n +1 -s 0.05 -f --pid="$pid" "$run/results.ktap" &
status=0
wait "$pid" || status=$?
pid=
wait

if grep -q 'Kernel panic' "$run/console.log" 2>/dev/null; then
	die "guest panicked: $(grep -m1 'Kernel panic' "$run/console.log" | sed 's/^\[[^]]*\] //') (see $run/console.log)"
fi
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
	die "guest did not finish within ${timeout}s; killed (see $run/console.log)"
fi
# icount without sleep warns when the guest idles with no timer armed.
qemu_err=$(grep -v 'icount sleep disabled and no active timers' "$run/qemu.err" || true)
if [ $status -ne 0 ] || [ -n "$qemu_err" ]; then
	die "QEMU failed (exit $status): $(head -n 1 <<<"$qemu_err")"
fi
