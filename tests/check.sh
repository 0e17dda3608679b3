#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: everything the project promises, as one KTAP document whose
# subtests are the suites; the last line counts every test of every suite:
# "N passed, N failed, N skipped".  Exit 0 only if nothing failed.
#
# CHECK_ARCHES (default: the arches whose arch/NAME.conf says default=yes)
# picks the guest arches; CHECK_SUITES="PATTERN..." (shell patterns,
# default all) only the suites whose names match one (make unit:
# 'unit-*'); CHECK_LIST=1 prints the suites and runs none.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. tools/build/arch.sh
# shellcheck source=tests/lib/ktap.sh
. tests/lib/ktap.sh
arches=${CHECK_ARCHES:-$(arch_defaults)}
for a in $arches; do
	arch_check "$a" check || exit 1
done
accel=${ACCEL:-tcg}
# make upstream-net's knobs, left in the environment, would change what
# make check runs (the lists, the tests, the guests' time and memory).
unset "${!UPSTREAM_@}"
out=build/check
mkdir -p "$out"

make -s --no-print-directory host-tools >"$out/host-tools.log" 2>&1 ||
	{ echo "check: building the launcher failed:" >&2; cat "$out/host-tools.log" >&2; exit 1; }

# Shipped topologies are found, not listed.  One that takes the lab's
# default arch runs once per arch; one whose nodes all pin their arch
# (the same `lab arches` whatever -a says) runs once, after the builds, if
# every arch it needs is checked.
# A file that does not parse counts as per arch: it fails once per arch.
per_arch_topos=() pinned_topos=()
for f in topo/*.topo; do
	needs=$(build/host/lab arches -a "${arches%% *}" "$f" 2>/dev/null | xargs)
	pinned=${needs:+1}
	for a in $(arch_all); do
		[ "$(build/host/lab arches -a "$a" "$f" 2>/dev/null | xargs)" = "$needs" ] || pinned=
	done
	if [ -z "$pinned" ]; then
		per_arch_topos+=("$(basename "$f" .topo)")
		continue
	fi
	for a in $needs; do
		[[ " $arches " == *" $a "* ]] || continue 2
	done
	pinned_topos+=("$(basename "$f" .topo)")
done

# Script suites are found by the line "# check: WHEN" in their header:
# tests/host/*.sh run on the host, tests/guest/*.sh in a one-guest lab.
marked() {	# marked DIR WHEN: the names of DIR's scripts so marked
	grep -lx "# check: $2" "$1"/*.sh | sed 's|.*/||; s|\.sh$||'
}
host_once=$(marked tests/host once)
host_after_build=$(marked tests/host "once, after the first build")
host_per_arch=$(marked tests/host "per arch")
# These boot every checked arch at once (given the arches as arguments).
host_after_builds=$(marked tests/host "once, after the builds")
guest_per_arch=$(marked tests/guest "per arch")

# Every suite's kind, script or topology, and arch, by its name.
suites=()
declare -A kind=() suite_file=() suite_arch=()
read -r -a picked <<<"${CHECK_SUITES:-*}"
add_suite() {	# add_suite NAME KIND FILE [ARCH]
	local p
	for p in "${picked[@]}"; do
		# shellcheck disable=SC2053 # CHECK_SUITES holds patterns
		[[ $1 == $p ]] || continue
		suites+=("$1")
		kind[$1]=$2 suite_file[$1]=$3 suite_arch[$1]=${4:-}
		return
	done
}
for s in $host_once; do
	add_suite "$s" host "tests/host/$s.sh"
done
first=1
for arch in $arches; do
	# These need the patched tree, which the first build makes.
	for s in $host_after_build; do
		[ -z "$first" ] || add_suite "$s" host-after-build "tests/host/$s.sh" "$arch"
	done
	first=
	for s in $guest_per_arch; do
		add_suite "$s-$arch" guest "/lab/tests/$s.sh" "$arch"
	done
	for s in $host_per_arch; do
		add_suite "$s-$arch" host-arch "tests/host/$s.sh" "$arch"
	done
	for t in "${per_arch_topos[@]}"; do
		add_suite "topo-$t-$arch" topo "topo/$t.topo" "$arch"
	done
done
for t in "${pinned_topos[@]}"; do
	add_suite "topo-$t" topo "topo/$t.topo" "${arches%% *}"
done
for s in $host_after_builds; do
	add_suite "$s" host-after-builds "tests/host/$s.sh"
done
if [ -n "${CHECK_LIST:-}" ]; then
	printf '%s\n' "${suites[@]}"
	exit 0
fi

passed=0 failed=0 skipped=0
declare -A built=()

# build ARCH: kernel and userland images, once per arch; the log in build/check.
# Called outside the suites' pipelines, so that the result is remembered.
build() {
	local arch=$1
	[ -z "${built[$arch]:-}" ] || return "${built[$arch]}"
	ktap_note "building kernel and userland for $arch (log: $out/build-$arch.log)"
	if make -s --no-print-directory ARCH="$arch" kernel userland >"$out/build-$arch.log" 2>&1; then
		built[$arch]=0
	else
		built[$arch]=1
		ktap_note "build for $arch failed:"
		tail -n 20 "$out/build-$arch.log" | sed 's/^/  /' | ktap_diag
	fi
	return "${built[$arch]}"
}

# run_suite NAME CMD...: CMD prints a KTAP document; it becomes a subtest
run_suite() {
	local name=$1 log p f s
	shift
	log=$out/$name.ktap
	"$@" 2>&1 | tee "$log" | ktap_nest
	read -r p f s < <(awk -f tools/ktap/count.awk "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -eq 0 ]; then
		ktap_result ok "$name"
	else
		ktap_result fail "$name"
	fi
}

# require_builds ARCH...: whether every ARCH built; if not, a suite's whole KTAP
# document says which did not.
require_builds() {
	local a
	for a in "$@"; do
		[ "${built[$a]:-1}" -eq 0 ] && continue
		ktap_header 1
		ktap_result fail "build for $a"
		return 1
	done
}

# guest_suite SCRIPT ARCH: a one-guest suite, its KTAP as the guest prints
# it; the launcher's "Bail out!" (a panic, a kernel report) fails it.
guest_suite() {
	local script=$1 arch=$2 name images
	name=$(basename "$script" .sh)
	require_builds "$arch" || return
	images=$(tests/lib/suite-images "tests/guest/$name.sh") || { ktap_header 1; ktap_result fail "images of $name"; return; }
	# shellcheck disable=SC2086 # "-i LIST" or nothing
	build/host/lab boot -a "$arch" -b "$top/build" -k "$accel" -T 600 $images \
		-r "build/$arch/runs/$name" "$script"
}

# host_arch_suite SCRIPT ARCH...: a host script that boots guests of ARCH...
host_arch_suite() {
	local script=$1
	shift
	require_builds "$@" || return
	"$script" "$@"
}

# topo_suite FILE ARCH: the launcher's own KTAP, without its closing line
# (the closing line of check counts everything).  ARCH is -a; every arch
# the topology needs must have built.
topo_suite() {
	local file=$1 arch=$2
	# shellcheck disable=SC2046 # arch names
	require_builds $(build/host/lab arches -a "$arch" "$file") || return
	# 128 MiB per guest: the shipped labs must pass with half the default.
	LAB_SERIES_HASH=$series build/host/lab run -a "$arch" -b "$top/build" -k "$accel" -m 128 "$file" |
		grep -v '^[0-9]* passed, [0-9]* failed'
}

series=$(cat patches/series patches/*.patch | sha256sum | cut -c1-16)

ktap_header ${#suites[@]}
for suite in "${suites[@]}"; do
	case ${kind[$suite]} in
	host) run_suite "$suite" "${suite_file[$suite]}" ;;
	host-after-build)
		build "${suite_arch[$suite]}"
		run_suite "$suite" "${suite_file[$suite]}"
		;;
	guest)
		build "${suite_arch[$suite]}"
		run_suite "$suite" guest_suite "${suite_file[$suite]}" "${suite_arch[$suite]}"
		;;
	host-arch)
		build "${suite_arch[$suite]}"
		run_suite "$suite" host_arch_suite "${suite_file[$suite]}" "${suite_arch[$suite]}"
		;;
	topo) run_suite "$suite" topo_suite "${suite_file[$suite]}" "${suite_arch[$suite]}" ;;
	host-after-builds)
		# shellcheck disable=SC2086 # arch names
		run_suite "$suite" host_arch_suite "${suite_file[$suite]}" $arches
		;;
	esac
done
ktap_closing $passed $failed $skipped
[ "$failed" -eq 0 ]
