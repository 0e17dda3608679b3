#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh (userland/build-base.sh)
# check: per arch
# images: kselftests
#
# The L3 network namespace suite, in one guest: each test of the series'
# kselftest (tools/testing/selftests/net/l3net.c) as its own result, the
# l3ns tool's command line and errors, and the kernel's own bind and
# reuseport selftests with no L3 namespace created (they must behave as on a
# kernel without the series).  The multi-guest half is topo/l3ns.topo.

# shellcheck source=tests/guest/lib.sh
. /lab/tests/lib.sh

KSELFTESTS=/lab/kselftests

# after lib.sh's test_cleanup: pins and test addresses go too
suite_cleanup() {
	local pin name
	for pin in /run/l3ns/*; do
		[ -e "$pin" ] || continue
		name=${pin##*/}
		l3ns del "$name" 2>/dev/null || true
		# what a test stacked on a pin outlives l3ns del
		while umount "/run/l3ns/$name" 2>/dev/null; do :; done
		rm -f "/run/l3ns/$name"
	done
	ip addr flush dev lo to 10.0.0.0/8 2>/dev/null || true
}

# kselftest_results LOG: the l3net kselftest's results as this suite's own
# tests, ktap_results records (tests/lib/ktap.sh): each failure with the
# harness output of its test, and a passing test with what it logged
# (TH_LOG: a part it could not check here).  The harness names a skipped
# test only in its "RUN" line ("ok N # SKIP why").
kselftest_results() {
	awk '
	/^#  RUN / { diag = ""; logged = ""; name = $3; sub(/^l3net\./, "", name); next }
	/^# .*l3net\.c:[0-9]+:[a-z_0-9]+:/ { logged = logged $0 "\n" }
	/^ok [0-9]+ # SKIP/ {
		sub(/^ok [0-9]+ # SKIP */, "")
		printf "skip\tkselftest l3net: %s\t%s\n", name, $0
		next
	}
	/^(not )?ok [0-9]+ l3net\./ {
		ok = $1 == "ok" ? "ok" : "fail"
		sub(/^(not )?ok [0-9]+ l3net\./, "")
		printf "%s\tkselftest l3net: %s\n%s", ok, $0, ok == "ok" ? logged : diag
		next
	}
	/^#/ { diag = diag $0 "\n" }' "$1"
}

# expect_error "MESSAGE" STATUS CMD...: CMD fails with STATUS and prints
# exactly one line, MESSAGE, on stderr
expect_error() {
	local want=$1 status=$2 got rc
	shift 2
	rc=0
	got=$("$@" 2>&1 >/dev/null) || rc=$?
	expect_eq "$status" "$rc" "exit status of '$*'"
	expect_eq "$want" "$got" "stderr of '$*'"
}

# The state an l3ns command may change: pins and owned addresses.
l3ns_state() {
	ls /run/l3ns 2>/dev/null
	l3ns addr show
	ip -o addr show | awk '{print $2, $4}'
}

test_cli_roundtrip() {
	l3ns add web
	l3ns add db loopback shared raw allow
	ip addr add 10.7.0.1/24 dev lo
	l3ns addr add web 10.7.0.2/24 dev lo
	l3ns addr add db 10.7.0.3/24 dev lo
	l3ns addr add web fd07::2/64 dev lo
	expect_eq "db 10.7.0.3/24
web 10.7.0.2/24 fd07::2/64" "$(l3ns list)" "l3ns list"
	expect_eq "web 10.7.0.2/24 dev lo
web fd07::2/64 dev lo" "$(l3ns addr show web)" "addr show web"
	expect_eq "" "$(l3ns identify)" "identify outside"
	expect_eq "web" "$(l3ns exec web l3ns identify)" "identify inside"
	expect_eq "web" "$(l3ns exec web sh -c 'l3ns identify $$')" "identify PID"
	l3ns exec web sh -c 'exit 7' || rc=$?
	expect_eq 7 "${rc:-0}" "exit status through exec"
	l3ns addr del web 10.7.0.2/24 dev lo
	l3ns addr del web fd07::2/64 dev lo
	expect_eq "web" "$(l3ns list | grep '^web')" "web after addr del"
	l3ns del web
	expect_eq "db 10.7.0.3/24" "$(l3ns list)" "list after del"
}

test_cli_errors() {
	l3ns add A
	ip addr add 10.7.0.1/24 dev lo
	l3ns addr add A 10.7.0.2/24 dev lo
	before=$(l3ns_state)
	expect_error "l3ns: add: missing NAME (try 'l3ns help')" 2 l3ns add
	expect_error "l3ns: addr: expected NAME ADDR/PLEN dev DEV (try 'l3ns help')" 2 \
		l3ns addr add A 10.7.0.4/24 lo
	expect_error "l3ns: A: File exists" 1 l3ns add A
	expect_error "l3ns: a/b: invalid name (use letters, digits, '-', '_', '.')" 1 l3ns add a/b
	expect_error "l3ns: 10.7.0.300/24: not an IPv4 or IPv6 address with prefix length (ADDR/PLEN)" 1 \
		l3ns addr add A 10.7.0.300/24 dev lo
	expect_error "l3ns: 10.7.0.4: not an IPv4 or IPv6 address with prefix length (ADDR/PLEN)" 1 \
		l3ns addr add A 10.7.0.4 dev lo
	expect_error "l3ns: fd07::4/129: not an IPv4 or IPv6 address with prefix length (ADDR/PLEN)" 1 \
		l3ns addr add A fd07::4/129 dev lo
	expect_error "l3ns: ::1/128: Invalid argument" 1 l3ns addr add A ::1/128 dev lo
	expect_error "l3ns: nosuch0: No such device" 1 l3ns addr add A 10.7.0.4/24 dev nosuch0
	expect_error "l3ns: Z: no such L3 namespace" 1 l3ns addr add Z 10.7.0.4/24 dev lo
	expect_error "l3ns: Z: no such L3 namespace" 1 l3ns exec Z true
	expect_error "l3ns: 10.7.0.2/24: File exists" 1 l3ns addr add A 10.7.0.2/24 dev lo
	expect_error "l3ns: 10.7.0.1/24: not an address of A on lo" 1 l3ns addr del A 10.7.0.1/24 dev lo
	expect_error "l3ns: B: Operation not permitted" 1 l3ns exec A l3ns add B
	expect_error "l3ns: 10.7.0.4/24: Operation not permitted" 1 \
		l3ns exec A l3ns addr add A 10.7.0.4/24 dev lo
	# a plain network namespace pinned where an L3 namespace would be
	ip netns add plain
	touch /run/l3ns/plain
	mount --bind /run/netns/plain /run/l3ns/plain
	expect_error "l3ns: plain: not an L3 namespace" 1 l3ns addr add plain 10.7.0.4/24 dev lo
	umount /run/l3ns/plain && rm /run/l3ns/plain
	expect_error "l3ns: frobnicate: unknown command (try 'l3ns help')" 2 l3ns frobnicate
	expect_eq "$before" "$(l3ns_state)" "state after the failed commands"
	# no CAP_SYS_ADMIN over the network namespace
	expect_error "l3ns: U: Operation not permitted" 1 unshare -U l3ns add U
	expect_eq "$before" "$(l3ns_state)" "state after the refused add"
}

# CMD runs in a mount namespace of its own, where /run/l3ns is read-only and
# from which no mount propagates back to the caller's pins
test_exec_mount_ns() {
	l3ns add A
	l3ns add B
	outside=$(stat -L -c %i /proc/self/ns/mnt)
	inside=$(l3ns exec A stat -L -c %i /proc/self/ns/mnt)
	{ [ -n "$inside" ] && [ "$inside" != "$outside" ]; } ||
		fail "mount namespace inside exec: '$inside', outside: '$outside'"
	rc=0
	err=$(l3ns exec A touch /run/l3ns/x 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status of touch /run/l3ns/x inside"
	case $err in
	*"Read-only file system"*) ;;
	*) fail "touch /run/l3ns/x inside: expected EROFS, got '$err'" ;;
	esac
	[ ! -e /run/l3ns/x ] || fail "/run/l3ns/x was created"
	expect_eq "A" "$(l3ns exec A l3ns identify)" "the pins inside"
	# root inside may stack a mount on a pin, in its own namespace only
	l3ns exec A mount --bind /run/l3ns/B /run/l3ns/A || true
	expect_eq 1 "$(grep -c ' /run/l3ns/A ' /proc/self/mountinfo)" "mounts at /run/l3ns/A outside"
}

# A command run in A holds copies of every pin in its mount namespace; they
# must not keep B alive once B is deleted
test_exec_pin_lifetime() {
	l3ns add A
	l3ns add B
	ip addr add 10.7.0.1/24 dev lo
	l3ns addr add B 10.7.0.3/24 dev lo
	bg l3ns exec A sleep 60
	pid=$(tail -n 1 /tmp/bg.pids)
	i=0
	while [ "$(l3ns identify "$pid" 2>/dev/null)" != A ]; do
		[ $i -lt 50 ] || fail "l3ns exec A sleep 60 did not enter A"
		sleep 0.1
		i=$((i + 1))
	done
	l3ns del B
	i=0
	while l3ns addr show | grep -q ' 10\.7\.0\.3/'; do
		[ $i -lt 50 ] || fail "10.7.0.3 still owned 5 s after l3ns del B: $(l3ns addr show)"
		sleep 0.1
		i=$((i + 1))
	done
	expect_eq "lo 10.7.0.3/24" "$(ip -4 -o addr show to 10.7.0.3 | awk '{print $2, $4}')" \
		"10.7.0.3 after B is gone"
}

# addr add/del refuse a pin with another namespace stacked on it, and change
# nothing; here the parent stacks it, as a root in its mount namespace could
test_tampered_pin() {
	l3ns add a
	l3ns add b
	ip addr add 10.7.0.1/24 dev lo
	l3ns addr add a 10.7.0.2/24 dev lo
	mount --bind /run/l3ns/b /run/l3ns/a
	before=$(l3ns_state)
	expect_error "l3ns: a: pin was tampered with (2 mounts at /run/l3ns/a)" 1 \
		l3ns addr add a 10.7.0.4/24 dev lo
	expect_error "l3ns: a: pin was tampered with (2 mounts at /run/l3ns/a)" 1 \
		l3ns addr del a 10.7.0.2/24 dev lo
	expect_eq "$before" "$(l3ns_state)" "state after the refused commands"
	umount /run/l3ns/a
	l3ns addr add a 10.7.0.4/24 dev lo
	expect_eq "a 10.7.0.2/24 dev lo
a 10.7.0.4/24 dev lo" "$(l3ns addr show a | sort)" "addresses of a, unstacked"
}

test_tcp_demux_by_owner() {
	l3ns add A
	l3ns add B
	ip addr add 10.7.0.1/24 dev lo
	l3ns addr add A 10.7.0.2/24 dev lo
	l3ns addr add B 10.7.0.3/24 dev lo
	bg socat TCP-LISTEN:8080,fork,reuseaddr SYSTEM:'echo H'
	bg l3ns exec A socat TCP-LISTEN:8080,fork,reuseaddr SYSTEM:'echo A'
	bg l3ns exec B socat TCP-LISTEN:8080,fork,reuseaddr SYSTEM:'echo B'
	wait_listen "" tcp 8080 3
	for who in H:1 A:2 B:3; do
		expect_eq "${who%:*}" "$(socat -t 5 -T 5 - TCP:10.7.0.${who#*:}:8080 </dev/null)" \
			"answer on 10.7.0.${who#*:}"
	done
}

# TCP metrics name both ends of the host's flows (ip tcp_metrics): inside,
# a namespace sees those of flows from its own addresses only.
test_tcp_metrics_by_owner() {
	local parent inside
	l3ns add A
	ip addr add 10.8.0.1/24 dev lo
	l3ns addr add A 10.8.0.2/24 dev lo
	bg socat TCP-LISTEN:8090,fork,reuseaddr SYSTEM:'echo x'
	wait_listen "" tcp 8090
	# Metrics are saved when a connection closes: one flow of each.
	socat -t 5 -T 5 - TCP:10.8.0.1:8090,bind=10.8.0.1 </dev/null >/dev/null
	l3ns exec A socat -t 5 -T 5 - TCP:10.8.0.1:8090 </dev/null >/dev/null
	sleep 0.5
	parent=$(ip tcp_metrics show)
	case $parent in
	*"source 10.8.0.1"*"source 10.8.0.2"* | *"source 10.8.0.2"*"source 10.8.0.1"*) ;;
	*) fail "the parent does not see both flows' metrics: $(echo "$parent" | tr '\n' ';')" ;;
	esac
	inside=$(l3ns exec A ip tcp_metrics show)
	expect_eq 1 "$(echo "$inside" | grep -c '^10\.8\.0\.1 .* source 10\.8\.0\.2$')" "A's own flow in its ip tcp_metrics"
	expect_eq "" "$(echo "$inside" | grep -v ' source 10\.8\.0\.2$')" "others' flows in A's ip tcp_metrics"
}

regression() {
	# built with every userland: missing means the image is not attached
	[ -x "$KSELFTESTS/$1" ] || fail "no $KSELFTESTS/$1 (lab boot -i kselftests)"
	[ ! -e /proc/self/ns/l3net ] || fail "running inside an L3 namespace"
	local prog=$1
	shift
	"$KSELFTESTS/$prog" "$@"
}

test_reuseport_dualstack() { regression reuseport_dualstack; }
test_reuseaddr_conflict() { regression reuseaddr_conflict; }
test_reuseport_addr_any() { regression reuseport_addr_any; }
# as its .sh runs it: one local port, autobind reuse, a fresh namespace
test_reuseaddr_ports_exhausted() {
	netns exhausted
	in_ns exhausted sysctl -qw net.ipv4.ip_local_port_range="32768 32768"
	in_ns exhausted sysctl -qw net.ipv4.ip_autobind_reuse=1
	in_ns exhausted "$KSELFTESTS/reuseaddr_ports_exhausted"
}
test_sk_bind_sendto_listen() { regression sk_bind_sendto_listen; }
test_bind_bhash() {
	ip addr add 10.8.8.8/32 dev lo
	ulimit -n 32768
	regression bind_bhash 443 ipv4 10.8.8.8
}

# The kselftest runs first, as a whole, so that the plan can count its tests.
log=/tmp/l3net.kselftest.log
results=/tmp/l3net.kselftest.results
if [ ! -x "$KSELFTESTS/l3net" ]; then
	printf 'fail\tkselftest l3net: no %s/l3net (lab boot -i kselftests)\n' "$KSELFTESTS" >$results
else
	"$KSELFTESTS/l3net" >$log 2>&1 || true
	kselftest_results $log >$results
	grep -q . $results || { printf 'fail\tkselftest l3net: no results\n'; ktap_diag <$log; } >$results
fi
cases=$(grep -vc '^#' $results)
ktap_header $((cases + 13))
ktap_results <$results
ktap_run "l3ns: add, addr add/del, list, identify, exec, del" test_cli_roundtrip
ktap_run "l3ns: bad input fails with one line and changes nothing" test_cli_errors
ktap_run "l3ns: exec gives CMD its own mount namespace, /run/l3ns read-only" test_exec_mount_ns
ktap_run "l3ns: a command run in A does not keep a deleted B alive" test_exec_pin_lifetime
ktap_run "l3ns: addr add/del refuse a pin with a mount stacked on it" test_tampered_pin
ktap_run "l3ns: TCP on 0.0.0.0:8080 in H, A and B answers by owner" test_tcp_demux_by_owner
ktap_run "l3ns: ip tcp_metrics inside shows only the namespace's own flows" test_tcp_metrics_by_owner
ktap_run "regression: reuseport_dualstack" test_reuseport_dualstack
ktap_run "regression: reuseaddr_conflict" test_reuseaddr_conflict
ktap_run "regression: reuseport_addr_any" test_reuseport_addr_any
ktap_run "regression: reuseaddr_ports_exhausted" test_reuseaddr_ports_exhausted
ktap_run "regression: sk_bind_sendto_listen" test_sk_bind_sendto_listen
ktap_run "regression: bind_bhash" test_bind_bhash
