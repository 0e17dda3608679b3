# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# fake_arch_into DIR TOP: makes DIR a project the launcher can run labs
# in with no kernel at all (LAB_TOP=DIR, lab ... -b DIR/build): the arches
# of TOP plus "toy", whose QEMU is tests/host/fake-qemu and whose images
# are empty files.  The host tests and bench-faults drive the launcher so.
fake_arch_into() {
	mkdir -p "$1/arch" "$1/configs" "$1/build/toy/kernel"
	cp "$2/configs/common.cmdline" "$1/configs/"
	cp "$2"/arch/*.conf "$1/arch/"
	printf '%s\n' "qemu=$2/tests/host/fake-qemu" machine=toyboard kernel_image=Image \
		>"$1/arch/toy.conf"
	: >"$1/build/toy/kernel/Image"
	: >"$1/build/toy/userland.erofs"
	: >"$1/build/toy/kselftests.erofs"
}
