#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check: once
#
# Every shell script of the project under shellcheck, one KTAP test each:
# clean at shellcheck's own default (every level, style too), following
# what each script sources (-x); a failure shows shellcheck's output.  The
# scripts are found, not listed: the files git tracks that end in .sh or
# whose #! line runs sh, dash or bash.  A script with no #! line (a
# sourced library) names its shell with a "shell=" directive; the guests'
# scripts say dash, their /bin/sh.  A finding that is wrong for its line
# is silenced there, by "# shellcheck disable=SCnnnn # why".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
# shellcheck source=tests/lib/ktap.sh
. tests/lib/ktap.sh

# shell_scripts: the shell scripts git tracks, one a line
shell_scripts() {
	local f first
	git ls-files -z | while IFS= read -r -d '' f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh) printf '%s\n' "$f" ;;
		*)
			IFS= read -r first <"$f" || true
			[[ $first =~ ^#![[:space:]]*(/usr)?/bin/(env[[:space:]]+)?(sh|dash|bash)([[:space:]]|$) ]] &&
				printf '%s\n' "$f"
			;;
		esac
	done
}

if ! command -v shellcheck >/dev/null; then
	ktap_header 1
	ktap_result fail "shellcheck is installed (make deps installs it)"
	exit 0
fi
mapfile -t scripts < <(shell_scripts)
if [ ${#scripts[@]} -eq 0 ]; then
	ktap_header 1
	ktap_result fail "shell scripts found (git ls-files in $top)"
	exit 0
fi

# One shellcheck a core, each on a share of the scripts (a process per
# script costs twice the time): every finding as a line "FILE:LINE:COL:
# LEVEL: MESSAGE [SCnnnn]" in $work/B.out, the exit status in $work/B.rc.
work=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-shellcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
batches=$(nproc)
for ((b = 0; b < batches; b++)); do
	share=()
	for ((i = b; i < ${#scripts[@]}; i += batches)); do
		share+=("${scripts[i]}")
	done
	[ ${#share[@]} -gt 0 ] || continue
	{
		shellcheck -x -f gcc "${share[@]}" >"$work/$b.out" 2>&1
		echo $? >"$work/$b.rc"
	} &
done
wait

# clean FILE BATCH: whether shellcheck found nothing in FILE
clean() {
	case $(cat "$work/$2.rc" 2>/dev/null) in
	0) return 0 ;;
	1) ! awk -v f="$1:" 'index($0, f) == 1 { found = 1 } END { exit !found }' "$work/$2.out" ;;
	*) return 1 ;;
	esac
}

ktap_header ${#scripts[@]}
for i in "${!scripts[@]}"; do
	f=${scripts[i]}
	if clean "$f" $((i % batches)); then
		ktap_result ok "shellcheck $f"
	else
		ktap_result fail "shellcheck $f"
		# its findings as shellcheck shows them, with the lines they are on
		shellcheck -x "$f" 2>&1 | ktap_diag
	fi
done
