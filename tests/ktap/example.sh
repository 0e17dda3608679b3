#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every kind of line tests/lib/ktap.sh writes; its output must be
# tests/ktap/example.ktap, and tools/ktap/close.sh must count it as
# example.close says (the unit tests compare both).
KTAP_TMP=$(mktemp -d)
trap 'rm -rf "$KTAP_TMP"' EXIT
# shellcheck source=tests/lib/ktap.sh
. "$(dirname "$0")/../lib/ktap.sh"

passes() { true; }
fails() { echo "a line of output"; echo "and another"; false; }
skips() { skip "no such hardware"; }
expect_fails() { expect_eq want got "what"; }

ktap_header 13
ktap_run "a test that passes" passes
ktap_run "a test that fails, its output after" fails
ktap_run "a test that skips" skips
ktap_run "expect_eq names what differed" expect_fails
ktap_result ok "a result written directly"
ktap_result skip "a skip written directly" "the reason"
ktap_result fail "a failure written directly"
printf 'a diagnostic\n' | ktap_diag
ktap_note "diagnostics given as" "arguments"
ktap_result skip "a skip with no reason"
ktap_result ok "a result with a directive" XFAIL "fails, as it should"
{
	ktap_header 2
	ktap_result ok "a case of a subtest"
	ktap_result fail "another case"
} | ktap_nest
ktap_result fail "a test with a subtest, after it"
printf '%s\n' 'ok	a result a parser found' '# its diagnostic' \
	'skip	a skip a parser found	its reason' 'fail	a failure a parser found	TODO	not yet' |
	ktap_results
ktap_bail "the example stops here"
