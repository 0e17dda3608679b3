#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# locked.sh [--shared] LOCKFILE COMMAND [ARG]...
#
# Runs COMMAND holding a flock(1) on LOCKFILE, exclusive unless --shared.
# Two makes at once (two `make run`, a `make kernel` beside make check)
# must not patch one kernel tree, or configure and compile
# into one object folder, together: the Makefile takes the object folder's
# lock for a kernel build, the tree's lock exclusive to patch it and shared
# to compile from it.  The second make says whom it waits for, waits, then
# finds the work done.  flock(1) holds the lock until COMMAND ends and does
# not hand its descriptor down (-o), so nothing COMMAND leaves running in
# the background keeps it; a killed make leaves nothing to clean up.
set -u

mode=-x
[ "${1:-}" != --shared ] || { mode=-s; shift; }
[ $# -ge 2 ] || { echo "locked.sh: usage: locked.sh [--shared] LOCKFILE COMMAND [ARG]..." >&2; exit 2; }
lock=$1
shift
mkdir -p "$(dirname "$lock")" || exit 2
# 253: flock's answer "held by another" (a command's own 253 only makes it
# run twice, after waiting).
rc=0
flock -n -E 253 -o $mode "$lock" "$@" || rc=$?
[ $rc -eq 253 ] || exit $rc
echo "netns-lab: waiting for another make that holds $lock" >&2
exec flock -o $mode "$lock" "$@"
