#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian packages netns-lab needs, or, without root,
# say in one message which ones to install.  Each arch (arch/NAME.conf)
# adds its cross compiler and QEMU packages; foreign guest packages come
# through multiarch, so dpkg must know each foreign Debian architecture.
# The arches are the default ones and those named in DEPS_ARCHES.
set -euo pipefail

prog=deps
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
# shellcheck disable=SC2046,SC2086 # lists of names, split on purpose
mapfile -t arches < <(printf '%s\n' $(arch_defaults) ${DEPS_ARCHES:-} | awk 'NF && !seen[$0]++')
for a in "${arches[@]}"; do
	arch_check "$a" "$prog" || exit 1
done

# NETNS_LAB_PACKAGES replaces the list (the unit tests use it).
base=$("$top/tools/build/series-base.sh" "$top/patches/series") || exit 1
default_packages=(
	"$base" gcc make libc6-dev busybox-static socat iproute2
	flex bison bc libelf-dev libssl-dev cpio erofs-utils ccache xz-utils kmod git util-linux procps
	python3 python3-ply python3-git shellcheck
)
foreign=()
native=$(dpkg --print-architecture)
# Read whole, not piped into grep -q: under pipefail, grep leaving at its
# first match kills dpkg with SIGPIPE and the pipeline fails.
known_foreign=" $(dpkg --print-foreign-architectures | xargs) "
for a in "${arches[@]}"; do
	# shellcheck disable=SC2207 # package lists split at spaces
	default_packages+=($(arch_get "$a" cross_packages) $(arch_get "$a" qemu_package))
	d=$(arch_get "$a" debian_arch)
	[ "$d" = "$native" ] || [[ " ${foreign[*]} " == *" $d "* ]] ||
		[[ $known_foreign == *" $d "* ]] || foreign+=("$d")
done
read -r -a packages <<<"${NETNS_LAB_PACKAGES:-${default_packages[*]}}"

missing=()
for p in "${packages[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || [ ${#foreign[@]} -gt 0 ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
	msg="$prog: missing:"
	for d in "${foreign[@]}"; do
		msg+=" the $d architecture (sudo dpkg --add-architecture $d);"
	done
	[ ${#missing[@]} -gt 0 ] && msg+=" packages ${missing[*]} (sudo apt-get update && sudo apt-get install ${missing[*]})"
	echo "$msg" >&2
	exit 1
fi

echo "  DEPS    installing: ${missing[*]}${foreign[*]:+ (and adding the architectures ${foreign[*]})}"
for d in "${foreign[@]}"; do
	dpkg --add-architecture "$d"
done
export DEBIAN_FRONTEND=noninteractive
apt-get update -q=2 || { echo "$prog: apt-get update failed" >&2; exit 1; }
if [ ${#missing[@]} -gt 0 ]; then
	# debconf's "delaying package configuration" note says nothing here.
	apt-get install -y -q=2 --no-install-recommends "${missing[@]}" \
		2> >(grep -v '^debconf: delaying package configuration' >&2) >/dev/null ||
		{ echo "$prog: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
fi
