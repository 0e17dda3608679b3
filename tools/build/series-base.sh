#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-base.sh SERIES: the Debian package whose source tarball the patch
# series applies to, as the series names it in a line "# base: PACKAGE"
# (linux-source-6.1, say: /usr/src/PACKAGE.tar.xz).  The Makefile (the
# tarball), make deps (the package) and kernel-tree.sh (its message) ask
# here, so that the series alone says what it is against.
set -euo pipefail

prog=series-base
[ $# -eq 1 ] || { echo "$prog: usage: $0 SERIES" >&2; exit 2; }
[ -r "$1" ] || { echo "$prog: $1: not found" >&2; exit 1; }
mapfile -t bases < <(sed -n 's/^#[[:space:]]*base:[[:space:]]*//p' "$1" | sed 's/[[:space:]]*$//')
case ${#bases[@]} in
0) echo "$prog: $1: no '# base: PACKAGE' line (the Debian linux-source package it applies to)" >&2; exit 1 ;;
1) ;;
*) echo "$prog: $1: more than one '# base:' line" >&2; exit 1 ;;
esac
[[ ${bases[0]} =~ ^linux-source-[0-9]+\.[0-9]+$ ]] ||
	{ echo "$prog: $1: base '${bases[0]}' is not a Debian package linux-source-X.Y" >&2; exit 1; }
echo "${bases[0]}"
