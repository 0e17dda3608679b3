#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: everything the project promises, as one KTAP document whose
# subtests are the suites; the last line counts every test of every suite:
# "N passed, N failed, N skipped".  Exit 0 only if nothing failed.
#
# CHECK_ARCHES (default "x86_64 arm64") limits the guest arches.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
arches=${CHECK_ARCHES:-x86_64 arm64}
accel=${ACCEL:-tcg}
out=build/check
mkdir -p "$out"

# Shipped topologies that take the lab's default arch run once per arch;
# those that pin arches node by node (mixed) run once, after all builds.
per_arch_topos="bridge router lan nicns"
pinned_topos="mixed l3ns"

suites=(host-unit)
first=1
for arch in $arches; do
	# checkpatch needs the patched tree, which the first build makes.
	[ -z "$first" ] || suites+=(checkpatch)
	first=
	suites+=("l2-$arch" "l3ns-$arch" "reliability-$arch" "lab-reliability-$arch")
	for t in $per_arch_topos; do
		suites+=("topo-$t-$arch")
	done
done
if [ "$arches" = "x86_64 arm64" ]; then
	for t in $pinned_topos; do
		suites+=("topo-$t")
	done
fi

passed=0 failed=0 skipped=0 n=0
declare -A built=()

# build ARCH: kernel and initramfs, once per arch; the log in build/check.
# Called outside the suites' pipelines, so that the result is remembered.
build() {
	local arch=$1
	[ -z "${built[$arch]:-}" ] || return "${built[$arch]}"
	echo "# building kernel and initramfs for $arch (log: $out/build-$arch.log)"
	if make -s --no-print-directory ARCH="$arch" kernel initramfs >"$out/build-$arch.log" 2>&1; then
		built[$arch]=0
	else
		built[$arch]=1
		echo "# build for $arch failed:"
		tail -n 20 "$out/build-$arch.log" | sed 's/^/#   /'
	fi
	return "${built[$arch]}"
}

image() {
	case $1 in
	x86_64) echo "build/x86_64/kernel/vmlinux" ;;
	arm64) echo "build/arm64/kernel/arch/arm64/boot/Image" ;;
	esac
}

# run_suite NAME CMD...: CMD prints a KTAP document; it becomes a subtest
run_suite() {
	local name=$1 log p f s
	shift
	n=$((n + 1))
	log=$out/$name.ktap
	"$@" 2>&1 | tee "$log" | sed 's/^/  /'
	read -r p f s < <(awk -f tools/ktap-count.awk "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
	fi
}

# guest_suite PAYLOAD ARCH: a one-guest suite (tests/guest/PAYLOAD.sh)
guest_suite() {
	local payload=$1 arch=$2
	[ "${built[$arch]}" -eq 0 ] || { echo "KTAP version 1"; echo "1..1"; echo "not ok 1 build for $arch"; return; }
	tools/boot-guest.sh -a "$accel" -t 600 "$arch" "$(image "$arch")" \
		"build/$arch/initramfs.cpio" "$payload" "build/$arch/runs/$payload"
}

lab_reliability_suite() {
	local arch=$1
	[ "${built[$arch]}" -eq 0 ] || { echo "KTAP version 1"; echo "1..1"; echo "not ok 1 build for $arch"; return; }
	tests/host/lab-reliability.sh "$arch"
}

# topo_suite FILE ARCH: the launcher's own KTAP, without its closing line
# (the closing line of check counts everything).
topo_suite() {
	local file=$1 arch=$2
	[ "${built[$arch]}" -eq 0 ] || { echo "KTAP version 1"; echo "1..1"; echo "not ok 1 build for $arch"; return; }
	# 128 MiB per guest: the shipped labs must pass with half the default.
	LAB_SERIES_HASH=$series build/host/lab run -a "$arch" -b "$top/build" -k "$accel" -m 128 "$file" |
		grep -v '^[0-9]* passed, [0-9]* failed'
}

reliability_suite() {
	local arch=$1
	[ "${built[$arch]}" -eq 0 ] || { echo "KTAP version 1"; echo "1..1"; echo "not ok 1 build for $arch"; return; }
	tests/host/reliability.sh "$arch" "$(image "$arch")" "build/$arch/initramfs.cpio"
}

series=$(cat patches/series patches/*.patch | sha256sum | cut -c1-16)
make -s --no-print-directory host-tools >"$out/host-tools.log" 2>&1 ||
	{ echo "check: building the launcher failed:" >&2; cat "$out/host-tools.log" >&2; exit 1; }

echo "KTAP version 1"
echo "1..${#suites[@]}"
for suite in "${suites[@]}"; do
	case $suite in
	host-unit) run_suite "$suite" tests/host/run.sh ;;
	checkpatch)
		build "${arches%% *}"
		run_suite "$suite" tests/host/checkpatch.sh
		;;
	l2-* | l3ns-*)
		build "${suite#*-}"
		run_suite "$suite" guest_suite "${suite%%-*}" "${suite#*-}"
		;;
	reliability-*)
		build "${suite#reliability-}"
		run_suite "$suite" reliability_suite "${suite#reliability-}"
		;;
	lab-reliability-*)
		run_suite "$suite" lab_reliability_suite "${suite#lab-reliability-}"
		;;
	topo-*-*)
		t=${suite#topo-}
		run_suite "$suite" topo_suite "topo/${t%-*}.topo" "${t##*-}"
		;;
	topo-*)
		run_suite "$suite" topo_suite "topo/${suite#topo-}.topo" x86_64
		;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
