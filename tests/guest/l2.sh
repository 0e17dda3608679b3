#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # the guests' /bin/sh (userland/build-base.sh)
#
# check: per arch
# images: kselftests
#
# The L2 network namespace suite: the mainline mechanisms that the 2007 seed
# designs describe, one test each.  Runs in one guest (lab boot) that has
# two virtio NICs, eth1 and eth2, wired to each other by QEMU:
#
#     guest: eth1 (virtio) ==== QEMU dgram socket pair ==== eth2 (virtio)

# shellcheck source=tests/guest/lib.sh
. /lab/tests/lib.sh

# a and b: each has its own device list and its own loopback.
test_own_devices() {
	netns a b
	ip -n a link add d0 type dummy
	ip -n a link show d0 >/dev/null
	expect_fail "d0 of a seen from b" ip -n b link show d0
	expect_fail "d0 of a seen from the parent" ip link show d0
	expect_eq "1: lo" "$(ip -n b -o link show | cut -d: -f1-2)" "devices of b"
	in_ns a ping -c 1 -W 2 127.0.0.1 >/dev/null
	ip -n b link set lo down
	expect_fail "b pinged its loopback while it was down" \
		in_ns b ping -c 1 -W 1 127.0.0.1
	in_ns a ping -c 1 -W 2 127.0.0.1 >/dev/null
}

# parent --veth-- a --veth-- b: a veth pair carries traffic to a, and with a
# route in the parent, b two hops away is reachable through a.
test_veth_pass_through() {
	netns a b
	veth "" va 10.1.1.1/24 a eth0 10.1.1.2/24
	ping -c 1 -W 2 10.1.1.2 >/dev/null
	veth a vb 10.1.2.1/24 b eth0 10.1.2.2/24
	ip -n b route add default via 10.1.2.1
	in_ns a sysctl -qw net.ipv4.ip_forward=1
	expect_fail "b reached without a route" ping -c 1 -W 1 10.1.2.2
	ip route add 10.1.2.0/24 via 10.1.1.2
	ping -c 1 -W 2 10.1.2.2 >/dev/null
	bg in_ns b socat TCP-LISTEN:7000,reuseaddr SYSTEM:'echo from-b'
	wait_listen b tcp 7000
	expect_eq from-b "$(socat -T 5 - TCP:10.1.2.2:7000 </dev/null)" "TCP reply from b"
}

#   c (10.2.0.2, 10.2.0.3) -- r --+-- x (198.51.100.1 on lo)
#                                 +-- y (198.51.100.1 on lo)
# r routes 198.51.100.1 to x in table main, to y in table 100, and a rule
# sends traffic from 10.2.0.3 to table 100.
test_policy_routing() {
	local n
	netns c r x y
	veth c eth0 10.2.0.2/24 r eth0 10.2.0.1/24
	ip -n c addr add 10.2.0.3/24 dev eth0
	ip -n c route add default via 10.2.0.1
	veth r eth1 10.3.1.1/24 x eth0 10.3.1.2/24
	veth r eth2 10.3.2.1/24 y eth0 10.3.2.2/24
	in_ns r sysctl -qw net.ipv4.ip_forward=1
	ip -n x route add default via 10.3.1.1
	ip -n y route add default via 10.3.2.1
	for n in x y; do
		ip -n $n addr add 198.51.100.1/32 dev lo
		bg in_ns $n socat TCP-LISTEN:7,fork,reuseaddr SYSTEM:"echo $n"
		wait_listen $n tcp 7
	done
	ip -n r route add 198.51.100.1/32 via 10.3.1.2
	ip -n r route add 198.51.100.1/32 via 10.3.2.2 table 100
	expect_eq x "$(in_ns c socat -T 5 - TCP:198.51.100.1:7,bind=10.2.0.3 </dev/null)" \
		"10.2.0.3 before the rule"
	ip -n r rule add from 10.2.0.3 table 100
	expect_eq x "$(in_ns c socat -T 5 - TCP:198.51.100.1:7,bind=10.2.0.2 </dev/null)" \
		"10.2.0.2 through table main"
	expect_eq y "$(in_ns c socat -T 5 - TCP:198.51.100.1:7,bind=10.2.0.3 </dev/null)" \
		"10.2.0.3 through table 100"
}

# a and b both bind TCP and UDP port 8080 on INADDR_ANY, and each answers.
test_same_port() {
	local n
	netns a b
	veth "" va 10.4.1.1/24 a eth0 10.4.1.2/24
	veth "" vb 10.4.2.1/24 b eth0 10.4.2.2/24
	for n in a b; do
		bg in_ns $n socat TCP-LISTEN:8080,bind=0.0.0.0,fork SYSTEM:"echo tcp-$n"
		bg in_ns $n socat UDP-RECVFROM:8080,bind=0.0.0.0,fork SYSTEM:"echo udp-$n"
		wait_listen $n tcp 8080
		wait_listen $n udp 8080
	done
	expect_fail "second TCP listener on 0.0.0.0:8080 in a" \
		in_ns a socat -T 1 TCP-LISTEN:8080,bind=0.0.0.0 -
	expect_eq tcp-a "$(socat -T 5 - TCP:10.4.1.2:8080 </dev/null)" "TCP to a"
	expect_eq tcp-b "$(socat -T 5 - TCP:10.4.2.2:8080 </dev/null)" "TCP to b"
	expect_eq udp-a "$(echo hi | socat -T 5 - UDP:10.4.1.2:8080)" "UDP to a"
	expect_eq udp-b "$(echo hi | socat -T 5 - UDP:10.4.2.2:8080)" "UDP to b"
}

# Three devices named eth1 (the parent's virtio NIC and one in each of a and
# b); a sysfs mounted inside each namespace shows that namespace's own eth1.
test_same_name_sysfs() {
	local n mac index
	[ -e /sys/class/net/eth1 ] || skip "the parent has no eth1"
	netns a b
	ip link add nsa address 02:00:00:00:0a:01 type veth \
		peer name nsb address 02:00:00:00:0b:01
	ip link set nsa netns a
	ip link set nsb netns b
	ip -n a link set nsa name eth1
	ip -n b link set nsb name eth1
	for n in a b; do
		index=$(ip -n $n -o link show eth1 | cut -d: -f1)
		mac=$(ip -n $n -o link show eth1 | sed 's/.*link\/ether \([^ ]*\).*/\1/')
		# ip netns exec mounts a sysfs of the namespace it enters.
		expect_eq "$index" "$(in_ns $n cat /sys/class/net/eth1/ifindex)" "ifindex of $n's eth1"
		expect_eq "$mac" "$(in_ns $n cat /sys/class/net/eth1/address)" "address of $n's eth1"
		expect_eq "02:00:00:00:0$n:01" "$mac" "address of $n's eth1"
		expect_fail "$n's sysfs shows the parent's eth2" in_ns $n test -e /sys/class/net/eth2
	done
	expect_eq "$(ip -o link show eth1 | sed 's/.*link\/ether \([^ ]*\).*/\1/')" \
		"$(cat /sys/class/net/eth1/address)" "the parent's own eth1"
}

# /proc/net/dev and the net sysctls are per namespace.
test_proc_and_sysctl() {
	netns a b
	ip -n a link add d0 type dummy
	in_ns a grep -q ' d0:' /proc/net/dev || fail "d0 missing from a's /proc/net/dev"
	expect_fail "d0 in the parent's /proc/net/dev" grep -q ' d0:' /proc/net/dev
	expect_fail "d0 in b's /proc/net/dev" in_ns b grep -q ' d0:' /proc/net/dev
	expect_fail "the parent's eth1 in a's /proc/net/dev" in_ns a grep -q ' eth1:' /proc/net/dev
	sysctl -qw net.ipv4.ip_forward=0
	in_ns a sysctl -qw net.ipv4.ip_forward=1
	expect_eq 1 "$(in_ns a cat /proc/sys/net/ipv4/ip_forward)" "ip_forward in a"
	expect_eq 0 "$(in_ns b cat /proc/sys/net/ipv4/ip_forward)" "ip_forward in b"
	expect_eq 0 "$(cat /proc/sys/net/ipv4/ip_forward)" "ip_forward in the parent"
}

# eth1 and eth2 are virtio NICs on one QEMU wire.  Moved into a and b they
# leave the parent, keep their driver, carry traffic, and come back when
# their namespaces go.
test_virtio_nic_in_namespace() {
	local rx_before rx_after i
	{ [ -e /sys/class/net/eth1 ] && [ -e /sys/class/net/eth2 ]; } ||
		skip "the guest has no eth1/eth2 pair"
	expect_eq virtio_net "$(basename "$(readlink /sys/class/net/eth1/device/driver)")" \
		"driver of eth1"
	netns a b
	ip link set eth1 netns a
	ip link set eth2 netns b
	expect_fail "eth1 still in the parent" ip link show eth1
	[ ! -e /sys/class/net/eth1 ] || fail "/sys/class/net/eth1 still in the parent"
	expect_eq virtio_net \
		"$(basename "$(in_ns a readlink /sys/class/net/eth1/device/driver)")" \
		"driver of eth1 inside a"
	ip -n a addr add 192.0.2.1/24 dev eth1
	ip -n b addr add 192.0.2.2/24 dev eth2
	ip -n a link set eth1 up
	ip -n b link set eth2 up
	rx_before=$(in_ns b cat /sys/class/net/eth2/statistics/rx_packets)
	in_ns a ping -c 3 -W 2 192.0.2.2 >/dev/null
	rx_after=$(in_ns b cat /sys/class/net/eth2/statistics/rx_packets)
	[ "$rx_after" -ge $((rx_before + 3)) ] ||
		fail "eth2 received $((rx_after - rx_before)) packets, expected >= 3"
	ip netns delete a
	ip netns delete b
	i=0
	while [ ! -e /sys/class/net/eth1 ] || [ ! -e /sys/class/net/eth2 ]; do
		[ $i -lt 50 ] || fail "eth1/eth2 did not return to the parent"
		sleep 0.1
		i=$((i + 1))
	done
}

# The kselftest our patch series adds (tools/testing/selftests/net).
test_kselftest_netns_views() {
	# built with every userland: missing means the image is not attached
	[ -x /lab/kselftests/netns_views ] || fail "no /lab/kselftests/netns_views (lab boot -i kselftests)"
	/lab/kselftests/netns_views
}

ktap_header 8
ktap_run "own device list and loopback per namespace" test_own_devices
ktap_run "veth pass-through, a namespace two hops away via routes" test_veth_pass_through
ktap_run "policy routing: source 10.2.0.3 takes table 100" test_policy_routing
ktap_run "same TCP and UDP port on INADDR_ANY in two namespaces" test_same_port
ktap_run "same name eth1 in two namespaces, each sysfs shows its own" test_same_name_sysfs
ktap_run "/proc/net/dev and net sysctls per namespace" test_proc_and_sysctl
ktap_run "virtio NIC moved into a namespace works there" test_virtio_nic_in_namespace
ktap_run "kselftest net/netns_views" test_kselftest_netns_views
