#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-base.sh ARCH OUT.cpio [PACKAGE_LIST]...
#
# The guest userland that comes from Debian: busybox-static for the small
# tools, dash as /bin/sh and the programs named in the package lists
# (userland/packages if none is given), with exactly the shared libraries
# their ELF headers ask for.  The .debs are
# downloaded (never installed), through multiarch for a foreign ARCH, and
# cached under build/debs/ARCH.
set -euo pipefail

prog=build-base
die() { echo "$prog: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: $0 ARCH OUT.cpio [PACKAGE_LIST]..."
arch=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=("$here/packages")
top=$(dirname "$here")

# shellcheck source=tools/build/arch.sh
. "$top/tools/build/arch.sh"
arch_check "$arch" "$prog" || exit 2
debarch=$(arch_need "$arch" debian_arch "$prog") || exit 2
triplet=$(arch_need "$arch" triplet "$prog") || exit 2

debs=$top/build/debs/$arch
work=$(mktemp -d "${TMPDIR:-/tmp}/netns-lab-userland.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage root=$work/root
mkdir -p "$debs" "$stage" "$root"

# Packages named in the lists: "PACKAGE [PROGRAM...]"; the programs are the
# paths taken from the package into the guest (a glob, or DEST=SRC).
mapfile -t lines < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${lists[@]}")
top_pkgs=()
for l in "${lines[@]}"; do
	read -r pkg _ <<<"$l"
	top_pkgs+=("$pkg:$debarch")
done

dpkg --print-foreign-architectures | grep -x "$debarch" >/dev/null ||
	[ "$debarch" = "$(dpkg --print-architecture)" ] ||
	die "dpkg has no $debarch architecture; run 'make deps' (dpkg --add-architecture $debarch && apt-get update)"

# The whole Depends closure is downloaded (a few MB, once); the ELF walk
# below then takes into the guest just the files that are really needed.
# For a foreign architecture apt-cache prints that architecture's packages
# with a ":ARCH" suffix; the others are arch-independent or the host's.
native=$(dpkg --print-architecture)
mapfile -t pkgs < <(
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "${top_pkgs[@]}" |
		grep -v '^ ' | grep -v '[<>]' |
		if [ "$debarch" = "$native" ]; then
			sed -n "s/^\([^:]*\)\(:$debarch\)\{0,1\}\$/\1/p"
		else
			sed -n "s/^\([^:]*\):$debarch\$/\1:$debarch/p"
		fi | sort -u)
# A listed package that is Architecture: all (netbase) has no ":ARCH" name
# to find it by there: it is taken by its bare name.
if [ "$debarch" != "$native" ]; then
	for t in "${top_pkgs[@]}"; do
		# grep reads it all: with -q it could end first, and pipefail
		# would count apt-cache's SIGPIPE as no.
		apt-cache show --no-all-versions "${t%%:*}" 2>/dev/null |
			grep -x 'Architecture: all' >/dev/null && pkgs+=("${t%%:*}")
	done
fi
[ ${#pkgs[@]} -gt 0 ] || die "apt-cache knows none of: ${top_pkgs[*]} (run 'make deps')"

missing=()
for p in "${pkgs[@]}"; do
	compgen -G "$debs/${p%%:*}_*_$debarch.deb" >/dev/null ||
	compgen -G "$debs/${p%%:*}_*_all.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "  APT     downloading ${#missing[@]} $debarch packages into build/debs/$arch"
	(cd "$debs" && apt-get download -q=2 -o APT::Sandbox::User=root "${missing[@]}") ||
		die "apt-get download failed for: ${missing[*]} (is 'apt-get update' done?)"
fi
for p in "${pkgs[@]}"; do
	deb=$(compgen -G "$debs/${p%%:*}_*_$debarch.deb" || compgen -G "$debs/${p%%:*}_*_all.deb")
	dpkg-deb -x "$(echo "$deb" | sort -V | tail -n1)" "$stage"
done

# Debian 12 keeps a /lib -> usr/lib merged layout only in newer packages;
# search both places.
libdirs=("lib/$triplet" "usr/lib/$triplet" lib usr/lib lib64)

find_lib() {
	local d
	for d in "${libdirs[@]}"; do
		if [ -e "$stage/$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}

declare -A copied=()
# in_stage PATH: PATH with its symlinks resolved inside the stage, as the
# guest would, component by component: Debian's links are often absolute
# (sbin/modprobe -> /bin/kmod), and followed on this machine they would
# take the host's file.
in_stage() {
	local rest=$1 done='' comp p t hops=0
	while [ -n "$rest" ]; do
		comp=${rest%%/*}
		if [[ $rest == */* ]]; then rest=${rest#*/}; else rest=; fi
		case $comp in
		'' | .) continue ;;
		..)
			if [[ $done == */* ]]; then done=${done%/*}; else done=; fi
			continue
			;;
		esac
		p=${done:+$done/}$comp
		if [ -L "$stage/$p" ]; then
			hops=$((hops + 1))
			[ $hops -le 40 ] || die "$1: too many symlinks"
			t=$(readlink "$stage/$p")
			# absolute: from the stage's root; relative: from DONE
			[[ $t != /* ]] || done=
			rest=${t#/}${rest:+/$rest}
		else
			done=$p
		fi
	done
	echo "$done"
}

copy_file() {	# copy_file STAGE_RELATIVE_PATH [DEST_RELATIVE_PATH]
	local src dst=${2:-$1}
	[ -z "${copied[$dst]:-}" ] || return 0
	copied[$dst]=1
	src=$(in_stage "$1")
	[ -f "$stage/$src" ] || die "$1: not a file in the packages (-> $src)"
	mkdir -p "$root/$(dirname "$dst")"
	cp "$stage/$src" "$root/$dst"
	case $(head -c4 "$root/$dst" | od -An -c | tr -d ' ') in
	177ELF) copy_needed "$root/$dst" ;;
	esac
}

copy_needed() {	# the DT_NEEDED closure of one ELF file
	local elf=$1 lib path interp
	interp=$(readelf -lW "$elf" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ]; then
		path=$(find_lib "$(basename "$interp")") ||
			die "$(basename "$elf"): interpreter $interp is in no downloaded package"
		copy_file "$path" "lib/$triplet/$(basename "$interp")"
		if [ ! -e "$root$interp" ] && [ ! -L "$root$interp" ]; then
			mkdir -p "$root$(dirname "$interp")"
			ln -s "/lib/$triplet/$(basename "$interp")" "$root$interp"
		fi
	fi
	for lib in $(readelf -dW "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(find_lib "$lib") ||
			die "$(basename "$elf") needs $lib, which no lib* dependency provides"
		copy_file "$path" "lib/$triplet/$lib"
	done
}

for l in "${lines[@]}"; do
	read -r -a words <<<"$l"
	pkg=${words[0]}
	# A PROGRAM may be a glob (usr/bin/*): every file it names; or
	# DEST=SRC: the package's SRC under the name DEST (what a Debian
	# alternative would link, or a multi-call binary's name).
	for p in "${words[@]:1}"; do
		if [[ $p == *=* ]]; then
			[ -e "$stage/${p#*=}" ] || [ -L "$stage/${p#*=}" ] || die "${lists[*]}: $pkg has no ${p#*=}"
			copy_file "${p#*=}" "${p%%=*}"
			continue
		fi
		mapfile -t found < <(cd "$stage" && { compgen -G "$p" || true; })
		[ ${#found[@]} -gt 0 ] || die "${lists[*]}: $pkg has no $p"
		for f in "${found[@]}"; do
			copy_file "$f"
		done
	done
done

# busybox provides every other command, one symlink each; real programs from
# the packages win (busybox's own shell would run its "ip" applet even when
# iproute2's ip is on PATH, which is why /bin/sh is dash).
# The applet list comes from the host's busybox-static: Debian builds every
# architecture from the same configuration, and the guest's binary may not
# run here.
command -v busybox >/dev/null || die "busybox not found on this machine (make deps)"
for applet in $(busybox --list); do
	case $applet in busybox | sh | ash) continue ;; esac
	exists=
	for d in bin sbin usr/bin usr/sbin; do
		[ -e "$root/$d/$applet" ] && exists=1
	done
	[ -n "$exists" ] || ln -s busybox "$root/bin/$applet"
done
ln -sf dash "$root/bin/sh"
mkdir -p "$root"/{proc,sys,dev,run,tmp,etc,root,var,mnt,usr/sbin}
ln -s ../run "$root/var/run"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$root/etc/passwd"
# Debian's tcpdump drops root for a user of its own, and stops if there is none.
[ ! -e "$root/usr/bin/tcpdump" ] || echo "tcpdump:x:100:100:tcpdump:/:/bin/false" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
printf 'hosts: files\n' >"$root/etc/nsswitch.conf"

# Reproducible archive: sorted names, one timestamp, root owner.  Not
# compressed: under TCG, unpacking a gzip archive costs the guest more boot
# time (about 0.2 s of 1.7) than QEMU spends loading the larger file.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
echo "  CPIO    $out: $(du -k "$out" | cut -f1) KiB"
