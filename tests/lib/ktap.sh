# SPDX-License-Identifier: GPL-2.0
#
# The one KTAP v1 writer of the shell scripts, guest suites (dash) and host
# scripts (bash) alike: ktap_header, ktap_result, ktap_diag and the closing
# line ktap_closing (tools/ktap/close.sh prints it for a file).
#
# A suite defines one function per test and calls ktap_run for each; a
# failed test's output follows its result line as "# " diagnostics.  The
# test body runs in a subshell with set -e, so any failing command ends
# that test; test_cleanup, if the suite defines it, runs after each test.
# A test ends in SKIP by calling skip with the reason.

ktap_count=0

ktap_header() {	# ktap_header NUMBER_OF_TESTS
	ktap_count=0
	echo "KTAP version 1"
	echo "1..$1"
}

# ktap_result ok|fail|skip "DESCRIPTION" [REASON]: the next result line
# (REASON: why a test was skipped)
ktap_result() {
	ktap_count=$((ktap_count + 1))
	case $1 in
	ok) echo "ok $ktap_count $2" ;;
	skip) echo "ok $ktap_count $2 # SKIP $3" ;;
	*) echo "not ok $ktap_count $2" ;;
	esac
}

# ktap_diag: standard input as diagnostic lines, after a result
ktap_diag() {
	sed 's/^/# /'
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

