#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# close.sh FILE: the closing line of the KTAP document in FILE,
# "N passed, N failed, N skipped" (tools/ktap/count.awk counts, a truncated
# or bailed-out run failing); exit 1 if anything failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck disable=SC2046 # three numbers
set -- $(awk -f "$top/tools/ktap/count.awk" "$1")
ktap_closing "$@"
[ "$2" -eq 0 ]
