#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fcnal-test.sh of Debian's 6.1 calls two helpers it never defines, which
# came with backported fixes: wait_local_port_listen, which the tree has in
# net_helper.sh but the script does not source, and slowwait, which only
# later kernels have (tools/testing/selftests/net/lib.sh).  As it stands
# every case that waits for a listener fails with "command not found".
# This wrapper takes the first from the tree, defines the second as
# upstream does, exports both to the script's bash and runs the tree's
# fcnal-test.sh unmodified, with the same arguments, from its folder.

# slowwait SECONDS CMD...: runs CMD every 0.1 s until it succeeds, or fails
# after SECONDS (lib.sh).  EPOCHREALTIME: busybox's date has no %N.
slowwait() {
	local timeout_s=$1 start now out
	shift
	start=${EPOCHREALTIME/./}
	while true; do
		if out=$("$@"); then
			echo -n "$out"
			return 0
		fi
		now=${EPOCHREALTIME/./}
		if (((now - start) / 1000 > timeout_s * 1000)); then
			echo -n "$out"
			return 1
		fi
		sleep 0.1
	done
}

cd "$(dirname "$0")/../net" || exit 1
# shellcheck disable=SC1091 # the kernel tree's, beside fcnal-test.sh in the image
. ./net_helper.sh
export -f slowwait wait_local_port_listen
exec ./fcnal-test.sh "$@"
