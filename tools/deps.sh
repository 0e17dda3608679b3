#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian packages netns-lab needs, or, without root,
# say in one message which ones to install.  arm64 guest packages come
# through multiarch, so dpkg must know the arm64 architecture.
set -euo pipefail

prog=deps
# NETNS_LAB_PACKAGES replaces the list (the unit tests use it).
default_packages=(
	linux-source-6.1 gcc make libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-x86 qemu-system-arm busybox-static socat iproute2
	flex bison bc libelf-dev libssl-dev cpio ccache xz-utils kmod git util-linux procps
	python3 python3-ply python3-git
)
read -r -a packages <<<"${NETNS_LAB_PACKAGES:-${default_packages[*]}}"

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
need_arm64=
dpkg --print-foreign-architectures | grep -qx arm64 || need_arm64=1

[ ${#missing[@]} -gt 0 ] || [ -n "$need_arm64" ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
	msg="$prog: missing:"
	[ -n "$need_arm64" ] && msg+=" the arm64 architecture (sudo dpkg --add-architecture arm64);"
	[ ${#missing[@]} -gt 0 ] && msg+=" packages ${missing[*]} (sudo apt-get update && sudo apt-get install ${missing[*]})"
	echo "$msg" >&2
	exit 1
fi

echo "  DEPS    installing: ${missing[*]}${need_arm64:+ (and adding the arm64 architecture)}"
[ -z "$need_arm64" ] || dpkg --add-architecture arm64
export DEBIAN_FRONTEND=noninteractive
apt-get update -q=2 || { echo "$prog: apt-get update failed" >&2; exit 1; }
if [ ${#missing[@]} -gt 0 ]; then
	apt-get install -y -q=2 --no-install-recommends "${missing[@]}" >/dev/null ||
		{ echo "$prog: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
fi
