#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# locked.sh [--shared] LOCKFILE COMMAND [ARG]...
#
# Runs COMMAND holding a flock(1) on LOCKFILE, exclusive unless --shared.
# Two makes at once (two `make run`, make check's arches, a `make kernel`
# beside them) must not patch one kernel tree, or configure and compile
# into one object folder, together: the Makefile takes the object folder's
# lock for a kernel build, the tree's lock exclusive to patch it and shared
# to compile from it.  The second make says whom it waits for, waits, then
# finds the work done.  The lock goes with the last process holding its
# descriptor, so a killed make leaves nothing to clean up.
set -eu

mode=-x
[ "${1:-}" != --shared ] || { mode=-s; shift; }
[ $# -ge 2 ] || { echo "locked.sh: usage: locked.sh [--shared] LOCKFILE COMMAND [ARG]..." >&2; exit 2; }
lock=$1
shift
mkdir -p "$(dirname "$lock")"
exec 9>>"$lock"
if ! flock -n $mode 9; then
	echo "netns-lab: waiting for another make that holds $lock" >&2
	flock $mode 9
fi
exec "$@"
