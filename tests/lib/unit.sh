# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# unit.sh: what the host's unit tests (tests/host/unit-*.sh, make unit)
# share, sourced first: the project's top, KTAP_TMP (where ktap_run keeps
# each test's output, gone at exit), the KTAP writer, the plan, the
# launcher, the arch helpers (tools/build/arch.sh), and the fakes the
# tests build their small inputs with.  No kernel build, no guest.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KTAP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-unit.XXXXXX")
export KTAP_TMP
trap 'rm -rf "$KTAP_TMP"' EXIT
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/fake-arch.sh
. "$top/tests/lib/fake-arch.sh"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"

# unit_header: the plan, which is the script's ktap_run lines: adding one
# cannot leave it stale
unit_header() {
	ktap_header "$(grep -c "^ktap_run " "$0")"
}

# unit_lab: $lab, the launcher as tests/check.sh (make check, make unit)
# builds it before any suite; a script run alone wants make host-tools first
unit_lab() {
	lab=$top/build/host/lab
	[ -x "$lab" ] || { echo "unit: no $lab: make host-tools builds it" >&2; exit 1; }
}

scratch() {	# a fresh, empty folder for one test
	local d
	d=$(mktemp -d "$KTAP_TMP/t.XXXXXX")
	echo "$d"
}

# fake_arch: a scratch project top whose arch toy boots tests/host/fake-qemu
fake_arch() {
	local d
	d=$(scratch)
	fake_arch_into "$d" "$top"
	echo "$d"
}

# A small stand-in for linux-source: one file, two patches against it.
fake_source() {	# fake_source DIR
	local d=$1 w
	w=$d/work
	mkdir -p "$w/linux-source-0.0" "$d/patches"
	printf 'one\ntwo\nthree\n' >"$w/linux-source-0.0/file"
	tar -C "$w" -cJf "$d/src.tar.xz" linux-source-0.0
	git -C "$w/linux-source-0.0" init -q
	git -C "$w/linux-source-0.0" add -A
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -m base
	sed -i 's/one/ONE/' "$w/linux-source-0.0/file"
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -am "first"
	sed -i 's/three/THREE/' "$w/linux-source-0.0/file"
	git -C "$w/linux-source-0.0" -c user.name=t -c user.email=t@t commit -q -am "second"
	git -C "$w/linux-source-0.0" format-patch -q -o "$d/patches" HEAD~2..HEAD
	(cd "$d/patches" && printf '%s\n' *.patch) >"$d/patches/series"
}

# The host's TSC rate (arch tcg_tsc_param=) as the golden files say it.
host_khz() { sed -E 's/(_khz=)[0-9]+/\1HOST/'; }
