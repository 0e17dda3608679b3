#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check: per arch
# images: netselftests
#
# The kernel's own network selftests (tools/testing/selftests/net of the
# patched tree, unmodified) as the proof that the series changes nothing
# of mainline: the list tests/upstream/check.list, run twice in one guest,
# first with no L3 namespace (the series' static key off), then with one
# idle, pinned L3 namespace alive (the key on: every owner lookup runs for
# unconfined sockets).  The tests need bash and GNU tools: they run in a
# chroot into the netselftests image, a Debian root of its own with
# /proc, /sys, /dev, /run and /tmp of this guest bound in.

. /lab/tests/ktap.sh

root=/lab/netselftests
# settings gives each test 1500 s; none of the list takes a tenth of that
# under TCG.  The suite must end within lab boot's -T (600 s in make check
# and make upstream-net): past 540 s, the tests not run yet fail as such,
# named, rather than the guest being killed with their results.
export UPSTREAM_TIMEOUT=120
UPSTREAM_DEADLINE=$(($(date +%s) + 540))
export UPSTREAM_DEADLINE
list=/selftests/check.list
skips=/selftests/check.skips

if [ ! -x "$root/selftests/run-net" ]; then
	ktap_header 1
	ktap_result fail "the netselftests image is mounted on $root"
	exit 0
fi
for d in proc sys dev run tmp; do
	mount -o rbind "/$d" "$root/$d" || { echo "upstream-net: cannot bind /$d into $root" >&2; exit 1; }
done
tests=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$root$list" | wc -l)
ktap_header $((2 * tests + 1))
chroot "$root" /selftests/run-net 1 "$list" "$skips" "L3 key off"
# Upstream runs each test once a boot.  The first round's TIME_WAIT sockets
# would meet the second round's binds and connects to the same ports
# (reuseport_bpf fails so even with the key off, run twice within a
# minute): the second round starts when they are gone, as on a fresh boot.
waited=0
while [ -n "$(ss -Htan state time-wait)" ] && [ $waited -lt 70 ]; do
	sleep 1
	waited=$((waited + 1))
done
if l3ns add upstream-idle >/tmp/l3ns.log 2>&1 && [ "$(l3ns list | grep -c upstream-idle)" -eq 1 ]; then
	echo "ok $((tests + 1)) an idle, pinned L3 namespace is alive"
else
	echo "not ok $((tests + 1)) an idle, pinned L3 namespace is alive"
	sed 's/^/# /' /tmp/l3ns.log
fi
chroot "$root" /selftests/run-net $((tests + 2)) "$list" "$skips" "L3 key on"
