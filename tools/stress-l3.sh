#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress-l3.sh: make stress-l3.  Boots one ARCH guest (default: the
# first default arch) on the DEBUG=1 kernel (KASAN, lockdep, kmemleak),
# whatever DEBUG says, and
# runs tests/guest/stress-l3.sh in it: STRESS_CYCLES (default 1000) lives
# of an L3 namespace, STRESS_WORKERS (default 4) at a time, on
# STRESS_CPUS (default 2) vCPUs so that they really overlap.  Prints the
# guest's KTAP, adds the last test of its plan (the kernel console has no
# report matching KERNEL_SPLAT, the pattern make's debug suites use), then
# "N passed, N failed, N skipped".
#
# Exit: 0 all passed, 1 a test failed, 2 the run itself failed (build,
# boot, panic, timeout).  Slow: not part of make check.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=tools/arch.sh
. "$top/tools/arch.sh"
arch=${ARCH:-$(arch_defaults | cut -d' ' -f1)}
accel=${ACCEL:-tcg}
cycles=${STRESS_CYCLES:-1000}
workers=${STRESS_WORKERS:-4}
cpus=${STRESS_CPUS:-2}
die() { echo "stress-l3: $*" >&2; exit 2; }

# One definition of what a kernel report looks like: the Makefile's.
[ -n "${KERNEL_SPLAT:-}" ] || die "KERNEL_SPLAT is not set: run it as make stress-l3"
number() {	# number NAME VALUE MIN MAX, or die
	if ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		die "$1=$2: a number from $3 to $4"
	fi
}
# 64000: the guest gives cycle C the address 10.77.C/250.C%250+1
number STRESS_CYCLES "$cycles" 1 64000
number STRESS_WORKERS "$workers" 1 64
number STRESS_CPUS "$cpus" 1 8
# Under KASAN and TCG a cycle takes a second or two of a vCPU; the guest
# bounds every step itself, this only ends a guest that hangs.
timeout=${STRESS_TIMEOUT:-$((900 + 4 * cycles))}

# The image make DEBUG=1 builds (kernel_image_debug in arch/ARCH.conf).
arch_check "$arch" stress-l3 || exit 2
image=$(arch_image "$arch" debug)

echo "  BUILD   debug kernel and initramfs ($arch)"
make -s --no-print-directory ARCH="$arch" DEBUG=1 kernel initramfs || die "build failed"

runs=build/$arch/runs
run=$runs/stress-l3
ktap=$runs/stress-l3.ktap
mkdir -p "$runs"

# The payload is the test script itself: /lab/run holds only the payloads
# of initramfs/run, and the script lives in tests/guest like the suites.
start=$(date +%s)
status=0
tools/boot-guest.sh -a "$accel" -m 1024 -s "$cpus" -t "$timeout" \
	-c "ignore_loglevel lab.stress.cycles=$cycles lab.stress.workers=$workers" \
	"$arch" "$image" "build/$arch/initramfs.cpio" ../tests/stress-l3.sh "$run" |
	tee "$ktap" || status=$?
elapsed=$(($(date +%s) - start))

# The plan's last test is this one: the guest cannot see what its kernel
# prints after the guest's last line, nor trust a console that may be lost.
# (The console is a tty: its lines end in \r\n.)
plan=$(sed -n 's/^1\.\.\([0-9]*\)\r*$/\1/p' "$ktap" | head -n 1)
if [ -n "$plan" ] && [ -r "$run/console.log" ]; then
	if splat=$(grep -E "$KERNEL_SPLAT" "$run/console.log"); then
		{
			echo "not ok $plan stress: no KASAN, lockdep, RCU or WARN report on the console"
			head -n 20 <<<"$splat" | sed 's/^/# /'
			echo "# (all of it: $run/console.log)"
		} | tee -a "$ktap"
	else
		echo "ok $plan stress: no KASAN, lockdep, RCU or WARN report on the console" | tee -a "$ktap"
	fi
fi
echo "# stress-l3: $arch, $cpus vCPUs, $elapsed s in all (boot included)"

# shellcheck disable=SC2046 # three numbers
set -- $(awk -f tools/ktap-count.awk "$ktap")
echo "$1 passed, $2 failed, $3 skipped"
[ "$status" -eq 0 ] || exit 2
[ "$2" -eq 0 ] || exit 1
