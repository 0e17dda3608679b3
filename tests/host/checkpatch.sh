#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once, after the first build
#
# checkpatch.sh: scripts/checkpatch.pl --strict on every patch of the
# series, one KTAP test each.  New files make checkpatch ask whether
# MAINTAINERS needs updating (FILE_PATH_CHANGES); the series only adds files
# under directories MAINTAINERS already covers, so that question is not a
# failure.  checkpatch's SPDX check runs scripts/spdxcheck.py, which needs
# Debian's python3 with python3-ply and python3-git: /usr/bin comes first
# on PATH.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tree=$top/build/linux
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/patches/series")

ktap_header ${#patches[@]}
for p in "${patches[@]}"; do
	out=$(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict \
		--no-summary --terse --ignore FILE_PATH_CHANGES "$top/patches/$p" 2>&1)
	if [ -z "$out" ]; then
		ktap_result ok "checkpatch --strict $p"
	else
		ktap_result fail "checkpatch --strict $p"
		ktap_diag <<<"$out"
	fi
done
