#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress-l3.sh: make stress-l3.  Boots one ARCH guest (default: the
# first default arch) on the DEBUG=1 kernel (KASAN, lockdep, kmemleak),
# whatever DEBUG says, and
# runs tests/guest/stress-l3.sh in it: STRESS_CYCLES (default 1000) lives
# of an L3 namespace, STRESS_WORKERS (default 4) at a time, on
# STRESS_CPUS (default 2) vCPUs so that they really overlap.  Prints the
# guest's KTAP, adds the last test of its plan (the launcher found no
# kernel report on the console: BUG, WARN, KASAN, lockdep, RCU), then
# "N passed, N failed, N skipped".
#
# Exit: 0 all passed, 1 a test failed, 2 the run itself failed (build,
# boot, panic, timeout).  Slow: not part of make check.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
arch=${ARCH:-$(arch_defaults | cut -d' ' -f1)}
accel=${ACCEL:-tcg}
cycles=${STRESS_CYCLES:-1000}
workers=${STRESS_WORKERS:-4}
cpus=${STRESS_CPUS:-2}
die() { echo "stress-l3: $*" >&2; exit 2; }

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

arch_check "$arch" stress-l3 || exit 2

echo "  BUILD   debug kernel and userland ($arch)"
make -s --no-print-directory ARCH="$arch" DEBUG=1 kernel userland || die "build failed"

runs=build/$arch/runs
run=$runs/stress-l3
ktap=$runs/stress-l3.ktap
mkdir -p "$runs"

# The payload is the test script itself, in tests/guest like the suites,
# with the images its header names.
images=$(tests/lib/suite-images tests/guest/stress-l3.sh) || die "bad images line"
start=$(date +%s)
status=0
rm -rf "$run"
# shellcheck disable=SC2086 # "-i LIST" or nothing
build/host/lab boot -d -a "$arch" -b "$top/build" -k "$accel" -t 600 -m 1024 -s "$cpus" $images \
	-T "$timeout" -e "ignore_loglevel lab.stress.cycles=$cycles lab.stress.workers=$workers" \
	-r "$run" /lab/tests/stress-l3.sh 2>"$run.err" | tee "$ktap" || status=$?
elapsed=$(($(date +%s) - start))
cat "$run.err" >&2

# The plan's last test is this one: the guest cannot see what its kernel
# prints after the guest's last line; the launcher reads the console once
# QEMU has exited.
plan=$(sed -n 's/^1\.\.\([0-9]*\)\r*$/\1/p' "$ktap" | head -n 1)
if [ -n "$plan" ] && [ -r "$run/guest.console.log" ]; then
	ktap_count=$((plan - 1))
	if report=$(grep "the kernel reported a problem" "$run.err"); then
		{
			ktap_result fail "stress: no KASAN, lockdep, RCU or WARN report on the console"
			printf '%s\n(all of it: %s)\n' "$report" "$run/guest.console.log" | ktap_diag
		} | tee -a "$ktap"
	else
		ktap_result ok "stress: no KASAN, lockdep, RCU or WARN report on the console" | tee -a "$ktap"
	fi
fi
ktap_note "stress-l3: $arch, $cpus vCPUs, $elapsed s in all (boot included)"

rc=0
tools/ktap/close.sh "$ktap" || rc=1
# A kernel report ends lab boot with 2 too, but it is this run's last test.
[ "$status" -le 1 ] || [ -n "${report:-}" ] || exit 2
exit $rc
