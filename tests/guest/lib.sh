# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh (userland/build-base.sh)
#
# Helpers for the guest-side suites (sourced by dash): the KTAP runner plus
# namespace plumbing.  Every namespace and background process a test makes
# is gone before the next test starts.

# shellcheck source=tests/lib/ktap.sh
. /lab/tests/ktap.sh

test_cleanup() {
	local pid
	if [ -e /tmp/bg.pids ]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
		done </tmp/bg.pids
	fi
	rm -f /tmp/bg.pids
	ip -all netns delete 2>/dev/null || true
	! command -v suite_cleanup >/dev/null || suite_cleanup
}

# bg CMD...: start CMD in the background; it is killed when the test ends
bg() {
	"$@" &
	echo $! >>/tmp/bg.pids
}

# in_ns NS CMD...
in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# wait_listen NS PROTO PORT [COUNT]: wait (max 5 s) for COUNT (default 1)
# listeners, tcp or udp.  An empty NS means the current namespace, where
# the sockets of its L3 namespaces are listed too.
wait_listen() {
	local ns=$1 proto=$2 port=$3 count=${4:-1} i=0 flag=-ltn
	[ "$proto" = udp ] && flag=-lun
	while [ $i -lt 50 ]; do
		[ "$(${ns:+in_ns "$ns"} ss -H $flag "sport = :$port" | wc -l)" -ge "$count" ] &&
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "${ns:-this namespace}: fewer than $count listening on $proto port $port"
}

# veth NS_A IF_A ADDR_A NS_B IF_B ADDR_B: a veth pair with addresses, up.
# An empty namespace name means the current one.
veth() {
	local na=$1 ia=$2 aa=$3 nb=$4 ib=$5 ab=$6
	ip ${na:+-n "$na"} link add "$ia" type veth peer name "$ib" ${nb:+netns "$nb"}
	ip ${na:+-n "$na"} addr add "$aa" dev "$ia"
	ip ${nb:+-n "$nb"} addr add "$ab" dev "$ib"
	ip ${na:+-n "$na"} link set "$ia" up
	ip ${nb:+-n "$nb"} link set "$ib" up
}

# netns NAME...: new namespaces with loopback up
netns() {
	local ns
	for ns in "$@"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
	done
}
