# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# arch.sh: the arches of the lab, for scripts (sourced).  Each is one file,
# arch/NAME.conf (see arch/x86_64.conf); these helpers are the only way the
# scripts learn anything about an arch.

arch_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../arch" && pwd)

# Every arch with a file, sorted, space-separated.
arch_all() {
	local f names=()
	for f in "$arch_dir"/*.conf; do
		[ -e "$f" ] && names+=("$(basename "$f" .conf)")
	done
	echo "${names[*]}"
}

# The arches whose file says default=yes: what make check and the benches
# run when not told otherwise.  Native ones (no cross_compile) come first:
# they build with nothing but the host's gcc.
arch_defaults() {
	local a natives=() crosses=()
	for a in $(arch_all); do
		[ "$(arch_get "$a" default)" = yes ] || continue
		if [ -z "$(arch_get "$a" cross_compile)" ]; then
			natives+=("$a")
		else
			crosses+=("$a")
		fi
	done
	echo "${natives[*]}${natives[*]:+${crosses[*]:+ }}${crosses[*]}"
}

# arch_check NAME [PROG]: nothing if arch/NAME.conf exists, else a
# one-line reason on stderr ("PROG: unknown arch ...") and status 1.
arch_check() {
	[ -f "$arch_dir/$1.conf" ] && return 0
	echo "${2:+$2: }unknown arch '$1' (one of: $(arch_all); an arch is a file arch/NAME.conf)" >&2
	return 1
}

# arch_get NAME KEY: the value of KEY (repeated keys joined by spaces).
arch_get() {
	sed -n "s/^$2=//p" "$arch_dir/$1.conf" | tr -d '\r' | paste -sd' '
}

# arch_kernel_image NAME KOBJ: the image QEMU boots of the kernel built in
# the object folder KOBJ (the Makefile's KIMAGE, for scripts).
arch_kernel_image() {
	local image
	image=$(arch_need "$1" kernel_image) || return 1
	echo "$2/$image"
}

# arch_need NAME KEY [PROG]: arch_get, but a missing or empty KEY is an
# error naming the file.
arch_need() {
	local value
	value=$(arch_get "$1" "$2")
	[ -n "$value" ] && { echo "$value"; return 0; }
	echo "${3:+$3: }arch/$1.conf: no $2=" >&2
	return 1
}

