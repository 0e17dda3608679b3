#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh (userland/build-base.sh)
#
# images: netselftests
#
# upstream-net.sh KEY LISTS LABEL SECONDS [CAP [TESTS [SHARE]]]: the kernel's own network
# selftests (tools/testing/selftests/net of the patched tree, unmodified)
# as the proof that the series changes nothing of mainline.  Booted by
# tests/host/upstream-net.sh (make check, make upstream-net) on the
# selftests kernel (configs/selftests.config).
#
# LISTS: NAME[,NAME]..., the lists /selftests/NAME.list of the image
# (tests/upstream: check, what make check runs; more, the rest that runs
# here), one after the other, with the skips each expects (NAME.skips).
# KEY: off runs them with no L3 namespace (the series' static key off);
# on with one idle, pinned L3 namespace alive (every owner lookup runs
# for unconfined sockets): one state a boot, as upstream runs a test
# once a boot (tests/host/upstream-net.sh boots a guest for each). LABEL
# goes into every description (the arch). SECONDS: the suite's time;
# past it, the tests not run yet fail as such, named, rather than the
# guest being killed with their results (the host's lab boot -T must
# leave a minute more). CAP (default 300): a test's time, at most (the
# settings file gives 1500 s). TESTS: an extended regular expression;
# only the lists' lines it matches run (make upstream-net TESTS=;
# run_kselftest.sh -t takes exact names).  SHARE: COUNT:all or
# COUNT:N[,N]..., the numbers of those lines (from 1) to run, no more: one
# guest of several that share the lists (make upstream-net SHARDS=N,
# tests/upstream/split).  COUNT is how many lines the host found TESTS
# to match: the lists here are the host's, or a test fails saying so.
#
# The tests need bash and GNU tools: they run in a chroot into the
# netselftests image, a Debian root of its own with /proc, /sys, /dev,
# /run and /tmp of this guest bound in.

# shellcheck source=tests/lib/ktap.sh
. /lab/tests/ktap.sh

key=${1:-off} lists=${2:-check} label=${3:-$(uname -m)} seconds=${4:-540} cap=${5:-300} only=${6:-}
share=${7:-}
root=/lab/netselftests
# the lists, one file in the chroot's /tmp (this guest's /tmp, bound in)
list=/tmp/upstream.list
case $key in
off | on) ;;
*) echo "upstream-net: KEY must be off or on, not '$key'" >&2; exit 2 ;;
esac
case $lists in
'' | *[!a-z0-9,_-]*) echo "upstream-net: LISTS must be NAME[,NAME]..., not '$lists'" >&2; exit 2 ;;
esac
case $seconds$cap in
'' | *[!0-9]*) echo "upstream-net: SECONDS and CAP must be numbers, not '$seconds' '$cap'" >&2; exit 2 ;;
esac
count='' lines=all
if [ -n "$share" ]; then
	count=${share%%:*} lines=${share#*:}
	case $share in *:*) ;; *) count=bad ;; esac
	case $count in '' | *[!0-9]*) count=bad ;; esac
	case ,$lines, in
	,all,) ;;
	*[!0-9,]* | *,,* | *,0*) count=bad ;;
	esac
	if [ "$count" = bad ]; then
		echo "upstream-net: SHARE must be COUNT:all or COUNT:N[,N]... (from 1), not '$share'" >&2
		exit 2
	fi
fi
export UPSTREAM_TIMEOUT=$cap
UPSTREAM_DEADLINE=$(($(date +%s) + seconds))
export UPSTREAM_DEADLINE
# the lists' expected skips (NAME.skips beside NAME.list), one file too
skips=/tmp/upstream.skips

missing=
: >"$list"
: >"$skips"
for l in $(echo "$lists" | tr , ' '); do
	cat "$root/selftests/$l.list" >>"$list" 2>/dev/null || missing="$missing $l.list"
	[ ! -e "$root/selftests/$l.skips" ] || cat "$root/selftests/$l.skips" >>"$skips"
done
if [ ! -x "$root/selftests/run-net" ] || [ -n "$missing" ]; then
	ktap_header 1
	ktap_result fail "the netselftests image with run-net and $lists is mounted on $root"
	exit 0
fi
for d in proc sys dev run tmp; do
	mount -o rbind "/$d" "$root/$d" || { echo "upstream-net: cannot bind /$d into $root" >&2; exit 1; }
done
# modprobe (kmod) answers for a built-in module from the kernel's lists,
# indexed by depmod in a writable lib/modules (no module, so an empty
# modules.order).  Paths in full: busybox's chroot runs its own applet of
# a name before the chroot's program (its depmod writes no index).
release=$(uname -r)
if ! mount -t tmpfs -o size=4m modules "$root/lib/modules" ||
	! mkdir "$root/lib/modules/$release" ||
	! cp "$root/selftests/modules.builtin" "$root/selftests/modules.builtin.modinfo" "$root/lib/modules/$release/" ||
	! : >"$root/lib/modules/$release/modules.order" ||
	! chroot "$root" /sbin/depmod "$release"; then
	echo "upstream-net: cannot index the built-in modules for modprobe" >&2
	exit 1
fi
# One test a line: the lists' lines without comments, those TESTS
# matches, of those this guest's share.
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | grep -E -e "${only:-.}" >"$list.run"
matched=$(wc -l <"$list.run")
if [ -n "$count" ] && [ "$matched" -ne "$count" ]; then
	ktap_header 1
	ktap_result fail "TESTS '$only' matches as many lines of $lists here as on the host (here $matched, there $count)"
	exit 0
fi
awk -v lines="$lines" 'BEGIN { n = split(lines, l, ","); for (i = 1; i <= n; i++) want[l[i]] }
	lines == "all" || NR in want' "$list.run" >"$list"
tests=$(wc -l <"$list")
if [ "$tests" -eq 0 ]; then
	ktap_header 1
	ktap_result fail "a test of $lists matches '$only' (share $share)"
	exit 0
fi

# The idle L3 namespace: one test of its own, so that a failure to make it
# is not mistaken for a round's.
idle_namespace() {
	if l3ns add upstream-idle >/tmp/l3ns.log 2>&1 && [ "$(l3ns list | grep -c upstream-idle)" -eq 1 ]; then
		ktap_result ok "an idle, pinned L3 namespace is alive ($label)"
	else
		ktap_result fail "an idle, pinned L3 namespace is alive ($label)"
		ktap_diag </tmp/l3ns.log
	fi
}

case $key in
off)
	ktap_header "$tests"
	chroot "$root" /selftests/run-net 1 "$list" "$skips" "$label, L3 key off"
	;;
on)
	ktap_header $((tests + 1))
	idle_namespace
	chroot "$root" /selftests/run-net 2 "$list" "$skips" "$label, L3 key on"
	;;
esac
