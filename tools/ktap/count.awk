#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Counts the results of one KTAP document (top level only: nested subtests
# are the parent's business) and prints "PASSED FAILED SKIPPED".  Tests the
# plan promised but that never reported (a guest that died half-way) count
# as failed, so a truncated run can never look green; a run that bails out
# (the launcher's "Bail out!": a panic, a kernel report) fails at least once.
/^1\.\.[0-9]+/ && !planned { plan = substr($1, 4) + 0; planned = 1; next }
/^ok [0-9]+/ {
	if ($0 ~ /# [Ss][Kk][Ii][Pp]/) skipped++; else passed++
	next
}
/^not ok [0-9]+/ {
	if ($0 ~ /# [Ss][Kk][Ii][Pp]/) skipped++; else failed++
	next
}
/^Bail out!/ { bailed = 1; next }
END {
	seen = passed + skipped + failed
	if (!planned || seen < plan)
		failed += (planned ? plan - seen : 1)
	if (bailed && !failed)
		failed = 1
	printf "%d %d %d\n", passed, failed, skipped
}
