#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every kind of line tests/lib/ktap.sh writes; its output must be
# tests/ktap/example.ktap, and tools/ktap/close.sh must count it as
# example.close says (tests/host/unit.sh compares both).
KTAP_TMP=$(mktemp -d)
trap 'rm -rf "$KTAP_TMP"' EXIT
. "$(dirname "$0")/../lib/ktap.sh"

passes() { true; }
fails() { echo "a line of output"; echo "and another"; false; }
skips() { skip "no such hardware"; }
expect_fails() { expect_eq want got "what"; }

ktap_header 7
ktap_run "a test that passes" passes
ktap_run "a test that fails, its output after" fails
ktap_run "a test that skips" skips
ktap_run "expect_eq names what differed" expect_fails
ktap_result ok "a result written directly"
ktap_result skip "a skip written directly" "the reason"
ktap_result fail "a failure written directly"
printf 'a diagnostic\n' | ktap_diag
