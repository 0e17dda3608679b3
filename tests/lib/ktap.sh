# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh; the host's bash sources it too
#
# The one KTAP v1 writer of the shell scripts, guest suites (dash) and host
# scripts (bash) alike: ktap_header, ktap_result, ktap_diag and ktap_note,
# ktap_bail, ktap_nest (a subtest) and the closing line ktap_closing
# (tools/ktap/close.sh prints it for a file).  An awk script that parses
# another program's output hands its results to ktap_results as records.
#
# KTAP v1 is the kernel's Documentation/dev-tools/ktap.rst: a subtest is a
# whole KTAP document, every line of it indented by two spaces, and its
# parent's result line follows it.  A subtest is written in a subshell (a
# pipe into ktap_nest), so that its numbering is its own.
#
# A suite defines one function per test and calls ktap_run for each; a
# failed test's output follows its result line as "# " diagnostics.  The
# test body runs in a subshell with set -e, so any failing command ends
# that test; test_cleanup, if the suite defines it, runs after each test.
# A test ends in SKIP by calling skip with the reason.

ktap_count=0

# ktap_header [NUMBER_OF_TESTS]: the version line and the plan; without a
# number, the version line alone (a document whose plan is not known,
# which a reader counts as cut short)
ktap_header() {
	ktap_count=0
	echo "KTAP version 1"
	[ -z "${1:-}" ] || echo "1..$1"
}

# ktap_result ok|fail|skip DESCRIPTION [DIRECTIVE [REASON]]: the next
# result line.  skip is ok with the directive SKIP, its third argument the
# reason (ktap_result skip "a test" "no such hardware"); ok and fail take
# any directive (XFAIL, TODO) with its reason.
ktap_result() {
	local res=ok
	case $1 in
	ok) ;;
	fail) res="not ok" ;;
	skip) set -- ok "$2" SKIP "${3:-}" ;;
	*)
		echo "ktap_result: '$1': ok, fail or skip" >&2
		return 2
		;;
	esac
	ktap_count=$((ktap_count + 1))
	printf '%s\n' "$res $ktap_count $2${3:+ # $3${4:+ $4}}"
}

# ktap_results: the results a parser found, one a line, as result lines:
# "RESULT<tab>DESCRIPTION[<tab>DIRECTIVE[<tab>REASON]]", the arguments of
# ktap_result; a line that starts with "#" is a diagnostic, kept as it is.
ktap_results() {
	local tab line
	tab=$(printf '\t')
	while IFS= read -r line; do
		case $line in
		'#'*)
			printf '%s\n' "$line"
			continue
			;;
		esac
		set --
		while :; do
			case $line in
			*"$tab"*)
				set -- "$@" "${line%%"$tab"*}"
				line=${line#*"$tab"}
				;;
			*)
				set -- "$@" "$line"
				break
				;;
			esac
		done
		ktap_result "$@" || return
	done
}

# ktap_diag: standard input's lines as diagnostic lines, after a result
ktap_diag() {
	sed 's/^/# /'
}

# ktap_note LINE...: each LINE as a diagnostic line
ktap_note() {
	printf '# %s\n' "$@"
}

# ktap_bail REASON: the run cannot go on; a reader fails it
ktap_bail() {
	printf 'Bail out! %s\n' "$*"
}

# ktap_nest: standard input, a whole KTAP document, as a subtest: indented
# one level, line by line as it comes; the parent's result comes after it.
ktap_nest() {
	awk '{ print "  " $0; fflush() }'
}

# ktap_closing PASSED FAILED SKIPPED: the last line of every run
ktap_closing() {
	echo "$1 passed, $2 failed, $3 skipped"
}

# ktap_run "DESCRIPTION" FUNCTION
ktap_run() {
	local desc=$1 fn=$2 log rc
	log=${KTAP_TMP:-/tmp}/test.$((ktap_count + 1)).log
	(set -e; "$fn") >"$log" 2>&1
	rc=$?
	! command -v test_cleanup >/dev/null || test_cleanup
	if [ $rc -eq 0 ]; then
		ktap_result ok "$desc"
	elif [ $rc -eq 4 ]; then
		ktap_result skip "$desc" "$(tail -n 1 "$log")"
	else
		ktap_result fail "$desc"
		ktap_diag <"$log"
	fi
}

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*"
	exit 4
}

# expect_fail DESCRIPTION CMD...: CMD must fail (the negative half of a test)
expect_fail() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		fail "$what: '$*' succeeded"
	fi
}

# expect_eq WANT GOT WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}
