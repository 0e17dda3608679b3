#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh (userland/build-base.sh)
#
# make stress-l3, guest side (tests/host/stress-l3.sh boots it on the DEBUG=1
# kernel): many short lives of L3 namespaces, several at once, to shake
# out what a single pass of the suites cannot: leaks, use after free and
# lock order problems in creating, entering, releasing and re-using them.
#
# Each cycle: create a namespace, give it a /32 of its own, serve TCP and
# UDP on 0.0.0.0:9000 inside (the parent serves the same port and must not
# be the one answering), reach it from the parent, reach the parent from
# inside without binding (the source must be the namespace's address),
# then delete it and let its tasks go, in alternating order.  WORKERS
# cycles run at a time, and one more task keeps entering whatever
# namespace is pinned and leaving again, racing with the deletions.
#
#   parent: l3stress0 (dummy) 10.76.0.1/24, TCP 0.0.0.0:9001 answers with
#           the peer's address, TCP+UDP 0.0.0.0:9000 answer "parent",
#           UDP 127.0.0.1:9002 records who reached the parent's loopback
#   cycle C: namespace cC (cCs: loopback shared, cCr: raw allow) owning
#           10.77.C/250.C%250+1/32 on l3stress0, serving 0.0.0.0:9000
#
# Then: every address is the parent's again, kmemleak finds nothing, the
# static key is off.  The last test of the plan is the host's: the kernel
# console has no KASAN, lockdep or WARN report (tests/host/stress-l3.sh).
#
# lab.stress.cycles=N and lab.stress.workers=N on the kernel command line
# (STRESS_CYCLES, STRESS_WORKERS) override the defaults, 1000 and 4.

# shellcheck source=tests/guest/lib.sh
. /lab/tests/lib.sh

opt() {	# opt NAME DEFAULT: lab.stress.NAME from the kernel command line
	local v
	v=$(sed -n "s/.*lab\.stress\.$1=\([0-9]*\).*/\1/p" /proc/cmdline)
	echo "${v:-$2}"
}

cycles=$(opt cycles 1000)
workers=$(opt workers 4)
dir=/tmp/stress
errlog=$dir/errors
kmemleak=/sys/kernel/debug/kmemleak

# 10.77.0.1 ... 10.77.255.250: a /32 each, so that no address is the
# primary of another (deleting a primary would take its secondaries).
if [ "$cycles" -lt 1 ] || [ "$cycles" -gt 64000 ]; then
	ktap_bail "lab.stress.cycles=$cycles: 1 to 64000"
	exit 0
fi
[ "$workers" -ge 1 ] || workers=1
cycle_addr() { echo "10.77.$(($1 / 250)).$(($1 % 250 + 1))"; }

# cycle C: one namespace's life; on failure, the reason is in $why
cycle() {
	local c=$1 ns addr flags srv udp got
	addr=$(cycle_addr "$c")
	ns=c$c flags=
	# A sample of every creation flag, so that each path frees what it took.
	case $((c % 4)) in
	1) ns=${ns}s flags="loopback shared" ;;
	2) ns=${ns}r flags="raw allow" ;;
	esac
	why=
	# shellcheck disable=SC2086 # $flags is two words or none
	l3ns add "$ns" $flags 2>>$errlog || { why="l3ns add $ns $flags failed"; return 1; }
	if ! l3ns addr add "$ns" "$addr/32" dev l3stress0 2>>$errlog; then
		why="l3ns addr add $ns $addr/32 failed"
		l3ns del "$ns" 2>>$errlog
		return 1
	fi
	# stressnet (tools/debug) asks for 10 s, while a server is not up yet.
	l3ns exec "$ns" stressnet serve tcp 9000 "$ns" </dev/null >/dev/null 2>>$errlog &
	srv=$!
	l3ns exec "$ns" stressnet serve udp 9000 "$ns" </dev/null >/dev/null 2>>$errlog &
	udp=$!

	if ! got=$(stressnet ask tcp "$addr" 9000 2>>$errlog); then
		why="TCP to $addr:9000 ($ns) failed"
	elif [ "$got" != "$ns" ]; then
		why="TCP to $addr:9000 answered '$got', not $ns"
	elif ! got=$(stressnet ask udp "$addr" 9000 2>>$errlog); then
		why="UDP to $addr:9000 ($ns) failed"
	elif [ "$got" != "$ns" ]; then
		why="UDP to $addr:9000 answered '$got', not $ns"
	fi
	# One task leaves while the namespace lives on.
	kill $udp 2>/dev/null
	if [ -z "$why" ]; then
		if ! got=$(l3ns exec "$ns" stressnet ask tcp 10.76.0.1 9001 2>>$errlog); then
			why="TCP from $ns to the parent's 10.76.0.1:9001 failed"
		elif [ "$got" != "$addr" ]; then
			why="TCP from $ns left from '$got', not its $addr"
		fi
	fi

	# Pin first or tasks first: the namespace dies with whichever goes last.
	if [ $((c % 2)) -eq 0 ]; then
		l3ns del "$ns" 2>>$errlog || why="${why:-l3ns del $ns failed}"
		kill $srv 2>/dev/null
	else
		kill $srv 2>/dev/null
		l3ns del "$ns" 2>>$errlog || why="${why:-l3ns del $ns failed}"
	fi
	wait $srv $udp 2>/dev/null
	[ -z "$why" ]
}

worker() {	# worker W: cycles W, W + workers, W + 2 * workers, ...
	local c=$1
	while [ "$c" -lt "$cycles" ]; do
		if cycle "$c"; then
			echo "ok $c"
		else
			echo "fail $c: $why"
		fi >>$dir/results
		c=$((c + workers))
	done
}

# Enters every pinned namespace in turn and leaves again, until the workers
# are done.  Between listing the pins and opening one, a worker may have
# deleted it: that is a miss, not a failure.  Inside, the task names its
# namespace and sends that name to 127.0.0.1:9002, which is the parent's
# only for a namespace with loopback shared.
churn() {
	local ns out
	while [ ! -e $dir/done ]; do
		# shellcheck disable=SC2046 # pin names have no blanks (l3ns checks)
		set -- $(ls /run/l3ns 2>/dev/null)
		[ $# -gt 0 ] || { sleep 0.1; continue; }
		for ns in "$@"; do
			# shellcheck disable=SC2016 # $1 is the inner shell's
			out=$(l3ns exec "$ns" sh -c 'l3ns identify && stressnet send 127.0.0.1 9002 "$1"' - "$ns" 2>&1)
			case $out in
			"$ns" | "l3net:["*) echo entered ;;
			"l3ns: $ns: no such L3 namespace" | "l3ns: $ns: not an L3 namespace") echo missed ;;
			*) echo "fail: entering $ns: $(echo "$out" | tr '\n' ' ')" ;;
			esac
		done >>$dir/churn
	done
}

count() {	# count PATTERN FILE: lines of FILE matching PATTERN (0 if none)
	grep -c "$1" "$2" 2>/dev/null || true
}

test_cycles() {
	local failed
	failed=$(count '^fail' $dir/results)
	if [ "$failed" -gt 0 ]; then
		grep '^fail' $dir/results | head -n 20
		echo "last lines of the commands' errors:"
		tail -n 20 $errlog
		fail "$failed of $cycles cycles failed"
	fi
	expect_eq "$cycles" "$(count '^ok' $dir/results)" "cycles that ran to their end"
}

test_churn() {
	if grep -q '^fail' $dir/churn; then
		grep '^fail' $dir/churn | head -n 20
		fail "$(count '^fail' $dir/churn) entries went wrong"
	fi
	[ "$(count '^entered' $dir/churn)" -gt 0 ] || fail "no entry into a live namespace succeeded"
}

test_loopback_isolation() {
	local others
	# Names of namespaces with loopback shared end in "s".
	others=$(grep -v 's$' $dir/parent-lo || true)
	[ -z "$others" ] || fail "isolated namespaces reached the parent's 127.0.0.1:9002: $(echo "$others" | sort -u | head -n 10 | tr '\n' ' ')"
}

test_addresses_returned() {
	local owned first last a
	[ -n "$returned" ] || fail "still owned ${return_wait}s after the last cycle: $(l3ns addr show | head -n 10 | tr '\n' ';')"
	owned=$(l3ns addr show) || fail "l3ns addr show failed"
	expect_eq "" "$owned" "addresses owned by an L3 namespace"
	expect_eq "" "$(ls /run/l3ns 2>/dev/null)" "pins left in /run/l3ns"
	expect_eq "$cycles" "$(ip -4 -o addr show dev l3stress0 | grep -c ' inet 10\.77\.')" \
		"test addresses still configured on l3stress0"
	# The parent can bind them again: the first and the last one given out.
	first=$(cycle_addr 0)
	last=$(cycle_addr $((cycles - 1)))
	for a in $first $last; do
		socat -T 0.2 -u "UDP4-RECV:9003,bind=$a" - </dev/null || fail "the parent cannot bind $a"
	done
}

test_kmemleak() {
	local report
	[ -w $kmemleak ] || skip "no $kmemleak (CONFIG_DEBUG_KMEMLEAK off, or kmemleak disabled itself)"
	# Two scans apart: kmemleak leaves objects younger than 5 s alone, and
	# a pointer still in a register or stack slot can hide a leak once.
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	report=$(cat $kmemleak)
	if [ -n "$report" ]; then
		echo "$report" | head -n 100
		fail "$(echo "$report" | grep -c '^unreferenced object') suspected leaks"
	fi
}

test_static_key_off() {
	local count
	# No file shows a static key: kread reads its count (the first word
	# of struct static_key) through /proc/kcore.  The key is deferred: it
	# goes off a second after the last namespace, long before this runs
	# (the address and kmemleak waits).
	[ -r /proc/kcore ] || skip "no /proc/kcore (CONFIG_PROC_KCORE off): the static key cannot be read"
	count=$(kread l3net_active) || fail "kread l3net_active failed"
	[ "$key_alive" -gt 0 ] 2>/dev/null ||
		fail "the key read '$key_alive' with a namespace alive: kread does not see it"
	expect_eq 0 "$count" "count of the static key l3net_active with no L3 namespace left"
}

# ---------------------------------------------------------------- the run

mkdir -p $dir
: >$dir/results
: >$dir/churn
: >$errlog
ktap_header 7
ktap_note "stress-l3: $cycles cycles, $workers workers, $(nproc) CPUs, $(uname -m), kernel $(uname -r)"
[ ! -r /proc/sys/user/max_l3net_namespaces ] ||
	ktap_note "max_l3net_namespaces: $(cat /proc/sys/user/max_l3net_namespaces) (TIME_WAIT keeps up to a minute of cycles alive)"

grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
# Forget what kmemleak suspects from the boot: only the run counts.
if [ -w $kmemleak ]; then
	echo scan >$kmemleak 2>/dev/null
	echo clear >$kmemleak 2>/dev/null
fi

# The first l3ns add makes /run/l3ns a shared mount point; once, here,
# rather than by the workers racing each other to bind it (two binds would
# stack, and the upper one hide the pins made in the lower).
if ! l3ns add warmup; then
	ktap_bail "l3ns add does not work"
	exit 0
fi
# What the key reads with a namespace alive: proof that kread sees it move.
key_alive=$(kread l3net_active 2>&1)
if ! l3ns del warmup; then
	ktap_bail "l3ns del does not work"
	exit 0
fi
ip link add l3stress0 type dummy
ip link set l3stress0 up
ip addr add 10.76.0.1/24 dev l3stress0
stressnet serve tcp 9000 parent </dev/null >/dev/null 2>&1 &
parent_pids=$!
stressnet serve udp 9000 parent </dev/null >/dev/null 2>&1 &
parent_pids="$parent_pids $!"
stressnet serve tcp 9001 @peer </dev/null >/dev/null 2>&1 &
parent_pids="$parent_pids $!"
stressnet listen 127.0.0.1 9002 </dev/null >$dir/parent-lo 2>&1 &
parent_pids="$parent_pids $!"
for p in tcp:9000 udp:9000 tcp:9001 udp:9002; do
	i=0
	while ! grep -q ":$(printf %04X ${p#*:}) " /proc/net/${p%:*}; do
		[ $i -lt 50 ] || { ktap_bail "the parent's $p server did not start"; exit 0; }
		sleep 0.1
		i=$((i + 1))
	done
done

start=$(date +%s)
pids=
w=0
while [ $w -lt "$workers" ]; do
	worker $w &
	pids="$pids $!"
	w=$((w + 1))
done
churn &
churn_pid=$!

# Progress for whoever watches a run of an hour, once a minute.
last=$start
for pid in $pids; do
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		now=$(date +%s)
		if [ $((now - last)) -ge 60 ]; then
			ktap_note "progress: $(wc -l <$dir/results)/$cycles cycles after $((now - start)) s"
			last=$now
		fi
	done
	wait "$pid"
done
touch $dir/done
wait $churn_pid
elapsed=$(($(date +%s) - start))
for pid in $parent_pids; do
	kill "$pid" 2>/dev/null
done

ktap_note "cycles: $(count '^ok' $dir/results) passed, $(count '^fail' $dir/results) failed, in $elapsed s ($(awk -v t="$elapsed" -v n="$cycles" 'BEGIN { printf "%.2f", t / n }') s per cycle, $workers at a time)"
ktap_note "concurrent entries: $(count '^entered' $dir/churn) into a live namespace, $(count '^missed' $dir/churn) missed a pin being deleted, $(count '^fail' $dir/churn) failed"
ktap_note "the parent's 127.0.0.1:9002 heard from $(sort -u $dir/parent-lo | grep -c .) namespaces (only loopback shared ones may reach it)"

# The last namespaces go in a work item after their last reference, and a
# TIME_WAIT socket holds one for 60 s (TCP_TIMEWAIT_LEN).
returned='' return_wait=0
while [ $return_wait -lt 120 ]; do
	if [ -z "$(l3ns addr show 2>/dev/null)" ] && [ -z "$(ls /run/l3ns 2>/dev/null)" ]; then
		returned=1
		break
	fi
	sleep 1
	return_wait=$((return_wait + 1))
done
if [ -n "$returned" ]; then
	ktap_note "addresses: all back with the parent $return_wait s after the last cycle"
else
	ktap_note "addresses: not all back with the parent $return_wait s after the last cycle"
fi

ktap_run "stress: $cycles cycles of create, assign, listen, traffic, delete ($workers at a time)" test_cycles
ktap_run "stress: a task entering and leaving live namespaces meanwhile" test_churn
ktap_run "stress: only loopback shared namespaces reached the parent's 127.0.0.1" test_loopback_isolation
ktap_run "stress: every test address is the parent's again, no namespace left" test_addresses_returned
ktap_run "stress: kmemleak suspects no leak after the run" test_kmemleak
ktap_run "stress: the static key l3net_active is off again" test_static_key_off
# Test 7 of the plan is the host's (tests/host/stress-l3.sh): the console.
