#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh (make bench-build): per arch, side by side in one run,
#   cold    a kernel build in an empty object folder with ccache off,
#   no-op   the same build again with nothing changed,
#   edit    the build after the last patch of the series was edited (its
#           commit message; git am rewrites the files it touches),
# each in seconds of wall time.  The edited patch is put back afterwards.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arches=${BENCH_ARCHES:-$(arch_defaults)}
last=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series | tail -n 1)
[ -n "$last" ] || { echo "bench-build: patches/series is empty" >&2; exit 2; }

seconds() {	# seconds CMD...: wall time of CMD, its output to the log
	local start=$EPOCHREALTIME
	"$@" >>"$log" 2>&1 || { echo "bench-build: '$*' failed, see $log" >&2; exit 2; }
	echo "$EPOCHREALTIME - $start" | bc
}

restore() { git checkout -q -- "patches/$last"; }
trap restore EXIT

printf '%-8s %10s %10s %10s\n' arch cold/s no-op/s edit/s
for arch in $arches; do
	obj=build/bench/$arch/kernel
	log=build/bench/$arch/build.log
	rm -rf "build/bench/$arch"
	mkdir -p "build/bench/$arch"
	make -s ARCH="$arch" tree >>"$log" 2>&1
	cold=$(seconds env CCACHE_DISABLE=1 make -s ARCH="$arch" KOBJ="$top/$obj" kernel)
	noop=$(seconds make -s ARCH="$arch" KOBJ="$top/$obj" kernel)
	sed -i "0,/^Subject: /s/^\(Subject: .*\)\$/\1 (bench edit)/" "patches/$last"
	edit=$(seconds make -s ARCH="$arch" KOBJ="$top/$obj" kernel)
	restore
	make -s ARCH="$arch" tree >>"$log" 2>&1
	printf '%-8s %10.1f %10.1f %10.1f\n' "$arch" "$cold" "$noop" "$edit"
done
