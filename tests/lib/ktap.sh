# SPDX-License-Identifier: GPL-2.0
#
# KTAP v1 test helpers shared by the guest suites (dash) and the host-side
# unit tests (bash).  A suite defines one function per test and calls
# ktap_run for each; a failed test's output follows its result line as "# "
# diagnostics.  The test body runs in a subshell with set -e, so any failing
# command ends that test; test_cleanup, if the suite defines it, runs after
# each test.  A test ends in SKIP by calling skip with the reason.

ktap_count=0

ktap_header() {	# ktap_header NUMBER_OF_TESTS
	echo "KTAP version 1"
	echo "1..$1"
}

# ktap_run "DESCRIPTION" FUNCTION
ktap_run() {
	local desc=$1 fn=$2 log rc
	ktap_count=$((ktap_count + 1))
	log=${KTAP_TMP:-/tmp}/test.$ktap_count.log
	(set -e; "$fn") >"$log" 2>&1
	rc=$?
	! command -v test_cleanup >/dev/null || test_cleanup
	if [ $rc -eq 0 ]; then
		echo "ok $ktap_count $desc"
	elif [ $rc -eq 4 ]; then
		echo "ok $ktap_count $desc # SKIP $(tail -n 1 "$log")"
	else
		echo "not ok $ktap_count $desc"
		sed 's/^/# /' "$log"
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

