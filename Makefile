# SPDX-License-Identifier: GPL-2.0
#
# netns-lab: the one entry point.  `make help` lists the targets.
#
# ARCH picks the guest architecture (arch/ARCH.conf); everything built for
# it lands in build/$(ARCH)/.  The patched kernel tree in build/linux is
# shared by both arches; objects are kept apart with O=.

topo ?= bridge
DEBUG ?= 0
NETSELFTESTS ?= 0
ACCEL ?= tcg
V ?= 0

TOP := $(CURDIR)

# An arch is one file, arch/$(ARCH).conf (see arch/x86_64.conf), read
# through tools/build/arch.sh as every script reads it.  The default is the
# first default arch, a native one when there is one.
ARCHES := $(basename $(notdir $(wildcard arch/*.conf)))
arch_sh = $(shell bash -c '. tools/build/arch.sh && $(1)')
arch_get = $(call arch_sh,arch_get $(1) $(2))
ifeq ($(origin ARCH),undefined)
ARCH := $(firstword $(call arch_sh,arch_defaults))
endif
ifeq ($(filter $(ARCH),$(ARCHES)),)
$(error ARCH=$(ARCH) is not supported: use one of $(ARCHES) (an arch is a file arch/NAME.conf))
endif
KARCH := $(call arch_get,$(ARCH),kernel_arch)
CROSS_COMPILE := $(call arch_get,$(ARCH),cross_compile)

BUILD := $(TOP)/build
B := $(BUILD)/$(ARCH)
KSRC := $(BUILD)/linux
# A debug kernel (DEBUG=1) and the selftests kernel (NETSELFTESTS=1, what
# the upstream net selftests need) keep their objects apart from the lab's.
KOBJ ?= $(B)/kernel$(if $(filter 1,$(DEBUG)),-debug)$(if $(filter 1,$(NETSELFTESTS)),-selftests)
# The debug kernel boots kernel_image_debug, or kernel_image without one.
KIMAGE := $(KOBJ)/$(or $(if $(filter 1,$(DEBUG)),$(call arch_get,$(ARCH),kernel_image_debug)),$(call arch_get,$(ARCH),kernel_image))
# The series names the Debian source package it applies to ("# base:").
BASE_PACKAGE := $(shell tools/build/series-base.sh patches/series)
ifeq ($(BASE_PACKAGE),)
$(error patches/series names no base package (see above))
endif
TARBALL ?= /usr/src/$(BASE_PACKAGE).tar.xz
NPROC := $(shell nproc)

# ccache keys on paths relative to the clone, so a fresh clone (CI) reuses
# the objects of an earlier one on the same machine.  Looked up when a
# recipe runs, not when this file is read: on a new machine `make deps`
# installs ccache after that, and a kernel built without it is rebuilt in
# full by the next make that finds it (kbuild sees CC change).
CCACHE = $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := true
export CCACHE_SLOPPINESS := time_macros,include_file_mtime,include_file_ctime
# Fixed build metadata: the same sources give the same objects and images.
export KBUILD_BUILD_TIMESTAMP := 2000-01-01
export KBUILD_BUILD_USER := netns-lab
export KBUILD_BUILD_HOST := netns-lab

# Recipes are bash with pipefail: a failing kbuild must fail its pipeline.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

# Every kbuild run reads the tree under its shared lock (kernel-tree.sh).
KMAKE = tools/build/locked.sh --shared $(KSRC).lock $(MAKE) -C $(KSRC) O=$(KOBJ) ARCH=$(KARCH) CROSS_COMPILE=$(CROSS_COMPILE) \
	-j$(NPROC) --no-print-directory $(if $(filter 1,$(V)),V=1,quiet=quiet_) \
	$(if $(CCACHE),CC="ccache $(CROSS_COMPILE)gcc" HOSTCC="ccache gcc")

# EXTRA_FRAGMENTS come last and win (bench-l3 builds its baseline kernel
# with configs/no-l3net.config).
FRAGMENTS := configs/common.config configs/$(ARCH).config \
	$(if $(filter 1,$(DEBUG)),configs/debug.config) \
	$(if $(filter 1,$(NETSELFTESTS)),configs/selftests.config) $(EXTRA_FRAGMENTS)
PATCHES := patches/series $(wildcard patches/*.patch)

# The closing line of a KTAP file, and failure if it counts a failed test.
ktap_close = tools/ktap/close.sh $(1)

.DELETE_ON_ERROR:
.PHONY: help deps tree toolchain kernel kernel-unlocked config userland userland-padded floor run shell lint graph \
	lab-images host-tools argv golden fuzz checkpatch series-check check unit \
	upstream-net stress-l3 bench-boot bench-build bench-lab bench-l3 bench-density bench-faults clean distclean FORCE

help:
	@echo 'netns-lab: a lab for Linux network namespaces (QEMU guests, TCG)'
	@echo
	@echo 'Everyday use:'
	@echo '  make topo=bridge run       build what is missing, boot the lab, run its tests'
	@echo '  make topo=bridge shell     boot the lab and keep it up: NODE: COMMAND at the prompt'
	@echo '  make topo=bridge graph     the topology as DOT (and PNG with graphviz)'
	@echo '  make topo=bridge lint      validate one topology file; make lint: all of topo/'
	@echo '  make topo=bridge argv      the QEMU command line of every node, nothing booted'
	@echo '  make check                 everything the project promises, both arches (CI)'
	@echo
	@echo 'Pieces:'
	@echo '  make deps                  install the Debian packages the lab needs (root)'
	@echo '  make tree                  unpack linux-source and apply patches/series'
	@echo '  make kernel                configure and build the kernel for ARCH'
	@echo '  make userland              the guest userland images for ARCH'
	@echo '  make unit                  host-side unit tests only'
	@echo '  make golden                rewrite tests/lab-argv and tests/lab-dump (lab argv, boot -n, dump)'
	@echo '  make checkpatch            checkpatch --strict on every patch of the series'
	@echo '  make series-check          build the kernel after every patch, both arches, and with L3 off'
	@echo '  make fuzz                  libFuzzer on the topology parser and the control'
	@echo '                             protocol, FUZZ_SECONDS=600 each (fuzz-topo, fuzz-ctl)'
	@echo '  make l2                    the L2 namespace suite in one ARCH guest'
	@echo '  make l3ns                  the L3 namespace suite in one ARCH guest'
	@echo '  make upstream-net          every upstream net selftest that runs here (tests/upstream/*.list),'
	@echo '                             selftests kernel with and without the series, a guest per arch'
	@echo '                             (ARCH= on the command line: that one only), and the diff'
	@echo '  make stress-l3             L3 namespace churn on the DEBUG=1 kernel: leaks, KASAN, lockdep'
	@echo '  make bench-boot            boot-to-first-test time against the bare kernel'"'"'s (floor), per arch'
	@echo '  make bench-build           cold, no-op and one-patch-edit kernel builds'
	@echo '  make bench-lab             bridge lab timings and memory, 3-vs-1 start-up, lint time'
	@echo '  make bench-faults          faults on the wire against their settings: loss, delay, rate'
	@echo '  make bench-l3              L3 namespace cost: TCP rr/stream, UDP rr connected/sendto,'
	@echo '                             IPv4 and IPv6, unconfined/L3/veth, +-series'
	@echo '  make bench-density         N = 1 to 1000 isolated services: set-up, teardown, memory,'
	@echo '                             rr; L3 namespaces against netns+veth/ipvlan/netkit, plain sockets'
	@echo '  make clean                 remove build/$$ARCH (keeps the kernel tree)'
	@echo '  make distclean             remove build/ entirely'
	@echo
	@echo 'Variables:'
	@echo '  ARCH=NAME                  guest arch, one of: $(ARCHES) (default $(ARCH); arch/NAME.conf)'
	@echo '  DEBUG=1                    add configs/debug.config (lockdep, KASAN, kmemleak)'
	@echo '  ACCEL=tcg|kvm              QEMU accelerator (default tcg; kvm only on request)'
	@echo '  topo=NAME|PATH             topo/NAME.topo, or any topology file'
	@echo '  capture=1                  write a pcap per NIC into the run folder'
	@echo '  STRESS_CYCLES=N            namespace lives of make stress-l3 (default 1000)'
	@echo '  KEY=off|on|both            make upstream-net: with no L3 namespace, one idle, or both (default)'
	@echo '  TESTS=REGEX                make upstream-net: only the tests whose list line matches (grep -E)'
	@echo '  SHARDS=N                   make upstream-net: N guests share a run'"'"'s tests by time (default: the cores)'
	@echo '  BASELINE=1|0|only          make upstream-net: also the kernel without the series and the diff (1,'
	@echo '                             default), the series alone (0), or the kernel without it alone (only)'
	@echo '  NETSELFTESTS=1             the selftests kernel (configs/selftests.config), as DEBUG=1'
	@echo '  V=1                        show the full kernel build commands'

# ---------------------------------------------------------------- set-up

deps:
	@DEPS_ARCHES="$(ARCH)" tools/build/deps.sh

# ---------------------------------------------------------------- kernel

# The tree script runs every time (a no-op costs a second) but rewrites its
# state file only when the applied series changed; make re-reads the file's
# time afterwards, so only then do the things built from the tree go stale.
# KSRC=DIR TREE= builds another, ready tree as it is (series-check does).
TREE ?= $(KSRC)/.git/netns-lab-applied
TREE_STAMP := $(TREE)

ifneq ($(TREE_STAMP),)
$(TREE_STAMP): FORCE | deps toolchain
	@tools/build/kernel-tree.sh $(TARBALL) $(KSRC) patches $(BASE_PACKAGE)
endif

tree: $(TREE_STAMP)

# After deps: an arch that is not a default one (ARCH=armhf) gets its
# compiler and QEMU the way the default ones do.
toolchain: | deps
	@command -v $(CROSS_COMPILE)gcc >/dev/null || { \
		echo "netns-lab: $(CROSS_COMPILE)gcc not found: the $(ARCH) build needs it$(if $(CROSS_COMPILE), (apt-get install $(call arch_get,$(ARCH),cross_packages), or make deps))" >&2; exit 1; }

$(KOBJ)/.config: $(FRAGMENTS) tools/build/check-config.sh $(TREE_STAMP) | toolchain
	@echo "  CONFIG  $(ARCH): tinyconfig + $(notdir $(FRAGMENTS))"
	@mkdir -p $(KOBJ)
	@$(KMAKE) -s tinyconfig >/dev/null
	@cd $(KSRC) && KCONFIG_CONFIG=$(KOBJ)/.config $(TOP)/tools/build/locked.sh --shared $(KSRC).lock \
		scripts/kconfig/merge_config.sh \
		-m -O $(KOBJ) $(KOBJ)/.config $(addprefix $(TOP)/,$(FRAGMENTS)) >$(KOBJ)/merge.log
	@$(KMAKE) -s olddefconfig >/dev/null
	@tools/build/check-config.sh $(KOBJ)/.config $(FRAGMENTS) || \
		{ rm -f $@; echo "kernel: configuration for $(ARCH) rejected (see above)" >&2; exit 1; }

# $(call in_kobj_lock,TARGET): TARGET made by a make that holds the object
# folder's lock (tools/build/locked.sh): one make at a time configures and
# builds into it.
in_kobj_lock = tools/build/locked.sh $(KOBJ).lock $(MAKE) $(if $(filter 1,$(V)),,-s) \
	--no-print-directory $(1)

config: | toolchain
	@$(call in_kobj_lock,$(KOBJ)/.config)

# A second `make run` or `make kernel` waits for the first, then finds the
# kernel built.
kernel: | toolchain
	@$(call in_kobj_lock,kernel-unlocked)

kernel-unlocked: $(KOBJ)/.config | toolchain
	@echo "  KERNEL  $(ARCH) ($(NPROC) jobs$(if $(CCACHE),, no ccache))"
	@$(KMAKE) $(notdir $(KIMAGE)) | \
		awk -v label="KERNEL  $(ARCH)" -v tty=$$([ -t 1 ] && echo 1 || echo 0) \
		-f tools/build/progress.awk
	@echo "  IMAGE   $(KIMAGE:$(TOP)/%=%)"

# Style of every patch in the series (see tests/host/checkpatch.sh).
checkpatch: $(TREE_STAMP)
	@tests/host/checkpatch.sh | tee $(BUILD)/checkpatch.ktap
	@$(call ktap_close,$(BUILD)/checkpatch.ktap)

# Every prefix of the series must build on both arches (bisectability).
# Slow (a kernel build per patch and arch); not part of make check.
series-check: $(TREE_STAMP)
	@tools/build/series-check.sh

# ---------------------------------------------------------------- guests

# Kernel selftests that the series adds and the guests run, built static
# from the patched tree (path below tools/testing/selftests, without .c).
KSELFTESTS := net/netns_views net/l3net \
	net/reuseport_dualstack net/reuseaddr_conflict net/reuseport_addr_any \
	net/reuseaddr_ports_exhausted net/sk_bind_sendto_listen net/bind_bhash
KSELFTEST_BINS := $(addprefix $(B)/kselftests/,$(notdir $(KSELFTESTS)))
SELFTESTS := $(KSRC)/tools/testing/selftests

# Every compiled program is written to a temporary name and renamed: two
# makes at once never leave, or copy into an image, half a binary.
TMP_OUT = $@.tmp$$$$
# $(call selftest_cc,SOURCE): a static program from the tree's selftests,
# compiled under the tree's shared lock (it never changes under it).
selftest_cc = tools/build/locked.sh --shared $(KSRC).lock \
	$(CROSS_COMPILE)gcc -static -s -pthread -O2 -Wall -I$(SELFTESTS) -o $(TMP_OUT) $(1) 2>&1 | \
	{ grep -v -e 'in function' -e 'statically linked applications requires' >&2 || true; } && \
	mv -f $(TMP_OUT) $@

$(B)/kselftests/%: $(TREE_STAMP) | toolchain
	@mkdir -p $(@D)
	@echo "  CC      kselftest $* ($(ARCH))"
	@$(call selftest_cc,$(SELFTESTS)/$(filter %/$*,$(KSELFTESTS)).c)

# The guest userland is read-only EROFS images, one file each, that the
# launcher attaches as virtio disks: userland.erofs is every guest's root
# (root=/dev/vda): the Debian programs (base.cpio, rebuilt only when the
# package list changes) and the lab's own files; a payload image (IMAGES)
# is attached only to the guests that name it (images= in a topology,
# lab boot -i, "# images:" in a guest suite) and mounted on /lab/NAME.
$(B)/base.cpio: userland/packages userland/build-base.sh | deps
	@mkdir -p $(@D)
	@tools/build/locked.sh $(B)/userland.lock userland/build-base.sh $(ARCH) $@

$(B)/netselftests-base.cpio: userland/packages userland/packages.netselftests \
		userland/build-base.sh | deps
	@mkdir -p $(@D)
	@tools/build/locked.sh $(B)/userland.lock userland/build-base.sh $(ARCH) $@ \
		userland/packages userland/packages.netselftests

# Copied whole into the image; it is there once the tree is.
$(SELFTESTS)/net: $(TREE_STAMP) ;

# The C helpers of tools/testing/selftests/net that the upstream tests of
# tests/upstream/*.list run, static like the kselftests above.
NETSELFTESTS_PROGS := reuseport_bpf reuseport_bpf_cpu reuseport_dualstack reuseaddr_conflict \
	sk_bind_sendto_listen sk_connect_zero_addr so_netns_cookie reuseport_addr_any \
	reuseaddr_ports_exhausted udpgso cmsg_sender nettest tcp_fastopen_backup_key \
	socket psock_fanout psock_tpacket txring_overwrite tun stress_reuseport_listen msg_zerocopy \
	psock_snd so_txtime ipv6_flowlabel ipv6_flowlabel_mgr fin_ack_lat txtimestamp rxtimestamp \
	bind_bhash ip_defrag udpgso_bench_rx udpgso_bench_tx

$(B)/netselftests/%: $(TREE_STAMP) | toolchain
	@mkdir -p $(@D)
	@echo "  CC      selftests/net/$* ($(ARCH))"
	@$(call selftest_cc,$(SELFTESTS)/net/$*.c)

# The guest's C programs: static, one binary per arch.
GUEST_CFLAGS := -static -s -O2 -Wall -Wextra -Werror
# $(call guest_cc,SOURCES): one of them, written whole or not at all.
guest_cc = $(CROSS_COMPILE)gcc $(GUEST_CFLAGS) -o $(TMP_OUT) $(1) && mv -f $(TMP_OUT) $@

# PID 1 of every guest, with the agent built in (tools/lab/guest: init.c,
# agent.c): mounts, NIC names, the payload.  It shares only the protocol
# header, tools/lab/proto.h, with the launcher.
LAB_INIT := $(B)/bin/lab-init
LAB_GUEST_SRCS := $(wildcard tools/lab/guest/*.c)

$(LAB_INIT): $(LAB_GUEST_SRCS) $(wildcard tools/lab/guest/*.h) tools/lab/proto.h | toolchain
	@mkdir -p $(@D)
	@echo "  CC      lab-init ($(ARCH))"
	@$(call guest_cc,$(LAB_GUEST_SRCS))

# l3ns (tools/l3ns): manages L3 network namespaces inside the guests.
L3NS := $(B)/bin/l3ns
L3NS_SRCS := $(wildcard tools/l3ns/*.c)

$(L3NS): $(L3NS_SRCS) $(wildcard tools/l3ns/*.h) | toolchain
	@mkdir -p $(@D)
	@echo "  CC      l3ns ($(ARCH))"
	@$(call guest_cc,$(L3NS_SRCS))

# tcpbench (tools/bench): the request/response and stream load of bench-l3.
TCPBENCH := $(B)/bin/tcpbench

$(TCPBENCH): tools/bench/tcpbench.c | toolchain
	@mkdir -p $(@D)
	@echo "  CC      tcpbench ($(ARCH))"
	@$(call guest_cc,$<)

# density (tools/bench): the services of bench-density and their checks.
DENSITY := $(B)/bin/density

$(DENSITY): tools/bench/density.c | toolchain
	@mkdir -p $(@D)
	@echo "  CC      density ($(ARCH))"
	@$(call guest_cc,$<)

# tools/debug: one-file helpers of make stress-l3 (kread: kernel state no
# file shows; stressnet: its network load), one binary each.
DEBUG_TOOLS := $(patsubst tools/debug/%.c,$(B)/bin/%,$(wildcard tools/debug/*.c))

$(DEBUG_TOOLS): $(B)/bin/%: tools/debug/%.c | toolchain
	@mkdir -p $(@D)
	@echo "  CC      $* ($(ARCH))"
	@$(call guest_cc,$<)

# DEST=SRC pairs of the root image, on top of base.cpio.
USERLAND := init=$(LAB_INIT) \
	$(foreach f,$(wildcard userland/run/*),lab/run/$(notdir $(f))=$(f)) \
	lab/tests/ktap.sh=tests/lib/ktap.sh \
	$(foreach f,$(wildcard tests/guest/*),lab/tests/$(notdir $(f))=$(f)) \
	usr/bin/l3ns=$(L3NS) \
	usr/bin/tcpbench=$(TCPBENCH) \
	usr/bin/density=$(DENSITY) \
	$(foreach t,$(DEBUG_TOOLS),usr/bin/$(notdir $(t))=$(t))
# Payload images, and the DEST=SRC pairs of each; IMAGE_BASE_NAME, if
# set, is the archive of build-base.sh the image starts from, and
# IMAGE_DIRS_NAME its empty folders (mount points).  make userland builds
# LAB_IMAGES; the others are built where they are used.
IMAGES := kselftests netselftests
LAB_IMAGES := kselftests
IMAGE_kselftests := $(foreach f,$(KSELFTEST_BINS),$(notdir $(f))=$(f))
# netselftests: the upstream net selftests (tests/guest/upstream-net.sh).
# A Debian root of its own, as the scripts want bash, GNU coreutils and
# iputils (userland/packages.netselftests on top of the guests' list),
# holding the patched tree's tools/testing/selftests/net as it is, the C
# helpers the listed tests call built for the arch, and the runner with
# its KTAP writer.  It boots only with the selftests kernel, and carries
# that kernel's list of built-in modules, for modprobe
# (tests/guest/upstream-net.sh mounts a tmpfs on lib/modules and runs
# depmod): built by tests/host/upstream-net.sh.
IMAGE_BASE_netselftests := $(B)/netselftests-base.cpio
IMAGE_DIRS_netselftests := lib/modules
IMAGE_netselftests := selftests/net=$(SELFTESTS)/net \
	$(foreach p,$(NETSELFTESTS_PROGS),selftests/net/$(p)=$(B)/netselftests/$(p)) \
	selftests/run-net=tests/upstream/run-net selftests/ktap.sh=tests/lib/ktap.sh \
	$(foreach f,$(wildcard tests/upstream/wrap/*),selftests/wrap/$(notdir $(f))=$(f)) \
	$(foreach f,$(wildcard tests/upstream/*.list tests/upstream/*.skips),selftests/$(notdir $(f))=$(f)) \
	selftests/modules.builtin=$(B)/kernel-selftests/modules.builtin \
	selftests/modules.builtin.modinfo=$(B)/kernel-selftests/modules.builtin.modinfo
pair_sources = $(foreach p,$(1),$(lastword $(subst =, ,$(p))))

# The root image's build-image.sh arguments: the padded one adds a file.
ROOT_IMAGE_ARGS = --base $(B)/base.cpio $(foreach i,$(IMAGES),--dir lab/$(i)) $(USERLAND)

$(B)/userland.erofs: $(B)/base.cpio $(call pair_sources,$(USERLAND)) userland/build-image.sh
	@tools/build/locked.sh $(B)/userland.lock userland/build-image.sh $@ $(ROOT_IMAGE_ARGS)

.SECONDEXPANSION:
$(IMAGES:%=$(B)/%.erofs): $(B)/%.erofs: $$(call pair_sources,$$(IMAGE_$$*)) $$(IMAGE_BASE_$$*) \
		userland/build-image.sh $(TREE_STAMP)
	@tools/build/locked.sh $(B)/userland.lock tools/build/locked.sh --shared $(KSRC).lock \
		userland/build-image.sh $@ $(if $(IMAGE_BASE_$*),--base $(IMAGE_BASE_$*)) \
		$(addprefix --dir ,$(IMAGE_DIRS_$*)) $(IMAGE_$*)

# Made by the selftests kernel's build.
$(B)/kernel-selftests/modules.builtin $(B)/kernel-selftests/modules.builtin.modinfo:
	@echo "netselftests image: it needs the selftests kernel's $(@F): make ARCH=$(ARCH) NETSELFTESTS=1 kernel" >&2
	@exit 1

userland: $(B)/userland.erofs $(LAB_IMAGES:%=$(B)/%.erofs)

# make bench-boot's proof that boot cost does not grow with the userland:
# the root image and 20 MiB that nothing reads.
$(B)/userland-padded.erofs: $(B)/userland.erofs
	@head -c 20M /dev/zero | tr "\0" p >$(B)/pad-20M
	@tools/build/locked.sh $(B)/userland.lock userland/build-image.sh $@ $(ROOT_IMAGE_ARGS) lab/pad-20M=$(B)/pad-20M; \
		rc=$$?; rm -f $(B)/pad-20M; exit $$rc

userland-padded: $(B)/userland-padded.erofs

# make bench-boot's floor: the same kernel with nothing but floor-init as
# /init (and /dev/console, which init's output needs), packed by the
# kernel's own gen_init_cpio: no root needed for the device node.
FLOOR_INIT := $(B)/bin/floor-init

$(FLOOR_INIT): tools/bench/floor-init.c | toolchain
	@mkdir -p $(@D)
	@echo "  CC      floor-init ($(ARCH))"
	@$(call guest_cc,$<)

# gen_init_cpio is a host tool of the kernel build: kernel first.
$(B)/floor.cpio: $(FLOOR_INIT) | kernel
	@printf '%s\n' 'dir /dev 0755 0 0' 'nod /dev/console 0600 0 0 c 5 1' \
		'file /init $(FLOOR_INIT) 0755 0 0' | $(KOBJ)/usr/gen_init_cpio - >$@
	@echo "  INITRD  $(@:$(TOP)/%=%): $$(($$(stat -c %s $@) / 1024)) KiB"

floor: $(B)/floor.cpio

# ---------------------------------------------------------------- running

RUNS := $(B)/runs

# The host launcher (tools/lab/host): parses topologies, boots and wires
# guests.  It shares only the protocol header, tools/lab/proto.h, with the
# guest.
LAB := $(BUILD)/host/lab
LAB_HOST_SRCS := $(wildcard tools/lab/host/*.c)
LAB_HOST_HDRS := $(wildcard tools/lab/host/*.h) tools/lab/proto.h
# The launcher reads arch/*.conf and configs/common.cmdline at run time,
# from this clone.
$(LAB): $(LAB_HOST_SRCS) $(LAB_HOST_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      lab (host)"
	@gcc -O2 -Wall -Wextra -Werror -DLAB_TOP='"$(TOP)"' -o $(TMP_OUT) $(filter %.c,$^) -lm && \
		mv -f $(TMP_OUT) $@

host-tools: $(LAB)

# topo=NAME is topo/NAME.topo; anything with a slash or .topo is a path.
# Recipes take it from the environment, "$$TOPO_FILE", so a path with
# spaces or quotes in it arrives whole.
# $(value topo): a $ in the path is the path's, not make's.
TOPO_FILE := $(if $(or $(findstring /,$(value topo)),$(filter %.topo,$(lastword $(value topo)))),$(value topo),topo/$(value topo).topo)
export TOPO_FILE
SERIES_HASH = $$(cat $(PATCHES) | sha256sum | cut -c1-16)

# Every arch the topology's nodes use is built before anything boots; the
# file is validated before anything is built.
lab-images: $(LAB)
	@$(LAB) lint -a $(ARCH) "$$TOPO_FILE"
	@for a in $$($(LAB) arches -a $(ARCH) "$$TOPO_FILE"); do \
		$(MAKE) -s --no-print-directory ARCH=$$a DEBUG=$(DEBUG) kernel userland || exit 2; done

# run, shell and argv see the guests the same way.
LAB_RUN_FLAGS := $(if $(filter 1,$(DEBUG)),-d) -a $(ARCH) -b $(BUILD) -k $(ACCEL) \
	$(if $(filter 1,$(capture)),-c)

run: lab-images
	@LAB_SERIES_HASH=$(SERIES_HASH) $(LAB) run $(LAB_RUN_FLAGS) "$$TOPO_FILE"

shell: lab-images
	@LAB_SERIES_HASH=$(SERIES_HASH) $(LAB) shell $(LAB_RUN_FLAGS) "$$TOPO_FILE"

# `make lint` checks every shipped topology, `make topo=X lint` just one.
LINT_FILES = $(if $(filter command line,$(origin topo)),"$$TOPO_FILE",$(wildcard topo/*.topo))
lint: $(LAB)
	@$(LAB) lint -a $(ARCH) $(LINT_FILES)
	@echo "  LINT    "$(LINT_FILES)": no errors"

# The QEMU command lines `make run` would use, and their golden copies:
# tests/lab-argv/NAME.ARCH.argv for every shipped topology and every arch.
# The host tests compare them; after a deliberate change, `make golden`
# rewrites them (review the diff).  The host's TSC rate (arch
# tcg_tsc_param=) is the machine's: the copies say HOST.
HOST_KHZ := sed -E 's/(_khz=)[0-9]+/\1HOST/'

argv: $(LAB)
	@$(LAB) argv $(LAB_RUN_FLAGS) "$$TOPO_FILE"

golden: $(LAB)
	@rm -rf $(BUILD)/lab-argv && mkdir -p $(BUILD)/lab-argv/boot tests/lab-argv
	@for a in $(ARCHES); do \
		for f in topo/*.topo; do \
			$(LAB) argv -a $$a $$f | $(HOST_KHZ) >$(BUILD)/lab-argv/$$(basename $$f .topo).$$a.argv; \
			[ $${PIPESTATUS[0]} -eq 0 ] || exit 2; \
		done; \
		$(LAB) boot -n -a $$a -i kselftests /lab/tests/l2.sh | $(HOST_KHZ) >$(BUILD)/lab-argv/boot/$$a.argv; \
		[ $${PIPESTATUS[0]} -eq 0 ] || exit 2; \
	done
	@rm -rf tests/lab-argv && mv $(BUILD)/lab-argv tests/lab-argv
	@echo "  GOLDEN  tests/lab-argv: $$(find tests/lab-argv -name '*.argv' | wc -l) files"
	@rm -rf $(BUILD)/lab-dump && mkdir -p $(BUILD)/lab-dump
	@for f in topo/*.topo; do \
		$(LAB) dump -a x86_64 $$f >$(BUILD)/lab-dump/$$(basename $$f .topo).dump || exit 2; \
	done
	@rm -rf tests/lab-dump && mv $(BUILD)/lab-dump tests/lab-dump
	@echo "  GOLDEN  tests/lab-dump: $$(ls tests/lab-dump | wc -l) files"

graph: $(LAB)
	@mkdir -p $(BUILD)/graphs
	@name=$$(basename "$$TOPO_FILE" .topo); \
	$(LAB) graph -a $(ARCH) "$$TOPO_FILE" >"$(BUILD)/graphs/$$name.dot" || exit 2; \
	echo "  DOT     build/graphs/$$name.dot"; \
	if command -v dot >/dev/null; then \
		dot -Tpng -o "$(BUILD)/graphs/$$name.png" "$(BUILD)/graphs/$$name.dot" && \
		echo "  PNG     build/graphs/$$name.png"; \
	else echo "  (apt-get install graphviz for a PNG)"; fi

# One-guest suites: the tests/guest scripts marked "# check: per arch"
# (make l2 runs tests/guest/l2.sh), booted by the launcher like every lab
# node (lab boot), which fails the run on a panic, a hang or a kernel
# report (BUG, WARN, KASAN, lockdep, RCU).  A debug kernel (KASAN's
# shadow, lockdep) needs more memory and time and prints every message.
# A suite's "# images: NAME,..." line attaches those payload images.
GUEST_SUITES := $(notdir $(basename $(shell grep -lx '\# check: per arch' tests/guest/*.sh)))
.PHONY: $(GUEST_SUITES)
SUITE_FLAGS := -a $(ARCH) -b $(BUILD) -k $(ACCEL) -K $(KIMAGE) \
	$(if $(filter 1,$(DEBUG)),-d -t 600 -m 1024 -T 1800 -e ignore_loglevel,-m 256 -T 600)

$(GUEST_SUITES): kernel userland $(LAB)
	@rm -rf $(RUNS)/$@
	@images=$$(tests/lib/suite-images tests/guest/$@.sh) || exit 2; \
	$(LAB) boot $(SUITE_FLAGS) $$images -r $(RUNS)/$@ /lab/tests/$@.sh; \
		$(call ktap_close,$(RUNS)/$@/results.ktap)

# Many short lives of L3 namespaces, several at once, always on the debug
# kernel (tests/host/stress-l3.sh boots tests/guest/stress-l3.sh); its console
# check is KERNEL_SPLAT above.  STRESS_CYCLES=N (default 1000) lives; long
# under KASAN and TCG (docs/testing.md), so not part of make check.
stress-l3: deps $(LAB)
	@ARCH=$(ARCH) ACCEL=$(ACCEL) tests/host/stress-l3.sh

# The kernel's own net selftests (tests/host/upstream-net.sh): the lists
# tests/upstream/check.list (make check runs it the same way) and more.list: every arch, or the ARCH
# given, at once, on the selftests kernel and on the one without the series.
# KEY only from the command line: an environment's KEY is often a secret;
# TESTS too (a common name).  TESTS=REGEX: only the lists' lines it matches.
# A guest's time: both lists take 45 minutes a round on x86_64, well over
# an hour on arm64 (KEY=both boots a guest for each state, in parallel); a
# test's, the settings file's own.  SHARDS=N (from the command line too):
# each run's tests shared by N guests, by default as many as the cores, so
# that one run alone, or three on two cores, keeps every core busy.
# BASELINE=only: the kernel without the series alone (BASELINE=0: the
# series alone, no diff).
UPSTREAM_SECONDS ?= 21600
upstream-net: deps $(LAB)
	@UPSTREAM_KEY=$(if $(filter command line,$(origin KEY)),$(KEY),both) UPSTREAM_LIST=check,more \
		UPSTREAM_BASELINE=$(if $(filter command line,$(origin BASELINE)),$(BASELINE),1) \
		UPSTREAM_SHARDS=$(if $(filter command line,$(origin SHARDS)),$(SHARDS),$(shell nproc)) \
		UPSTREAM_SECONDS=$(UPSTREAM_SECONDS) UPSTREAM_TEST_SECONDS=1500 \
		UPSTREAM_TESTS='$(if $(filter command line,$(origin TESTS)),$(subst ','"'"',$(value TESTS)))' \
		ACCEL=$(ACCEL) tests/host/upstream-net.sh $(if $(filter command line environment,$(origin ARCH)),$(ARCH)) | \
		tee $(BUILD)/upstream-net.ktap; $(call ktap_close,$(BUILD)/upstream-net.ktap)

# The unit suites of make check (tests/host/unit-*.sh), as make check runs
# them: one KTAP document, one closing line.
unit:
	@mkdir -p $(BUILD)
	@CHECK_SUITES='unit-*' tests/check.sh | tee $(BUILD)/unit.ktap

check: deps
	@ACCEL=$(ACCEL) tests/check.sh

# ---------------------------------------------------------------- fuzzing

# libFuzzer (clang) under ASan and UBSan, one target per input the
# launcher trusts no more than it must: the topology parser (seeded with
# every topology of the repo) and its side of the control protocol (seeded
# with transcripts of real agents, tests/fuzz/ctl/).  Each runs
# FUZZ_SECONDS; crashes land in build/fuzz/TARGET/, and its corpus grows
# there from run to run.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := topo ctl
FUZZ_SRCS_topo := tools/lab/host/topo.c tools/lab/host/fault.c
FUZZ_SRCS_ctl := $(filter-out tools/lab/host/lab.c,$(LAB_HOST_SRCS))
FUZZ_SEEDS_topo = topo/*.topo tests/topo-errors/*.topo
FUZZ_SEEDS_ctl = tests/fuzz/ctl/*
FUZZ_MAXLEN_topo := 4096
FUZZ_MAXLEN_ctl := 200000

$(BUILD)/fuzz/%_fuzz: tests/fuzz/%_fuzz.c $$(FUZZ_SRCS_$$*) $(LAB_HOST_HDRS)
	@mkdir -p $(@D)
	@command -v clang >/dev/null || { echo "netns-lab: fuzzing needs clang (apt-get install clang)" >&2; exit 1; }
	@echo "  CC      $(@F) (libFuzzer, ASan, UBSan)"
	@clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $(filter %.c,$^) -lm

.PRECIOUS: $(BUILD)/fuzz/%_fuzz
fuzz-%: $(BUILD)/fuzz/%_fuzz
	@mkdir -p $(BUILD)/fuzz/$*/corpus
	@cp $(FUZZ_SEEDS_$*) $(BUILD)/fuzz/$*/corpus/
	@echo "  FUZZ    $* for $(FUZZ_SECONDS)s (log: build/fuzz/$*/fuzz.log)"
	@$< -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAXLEN_$*) -timeout=5 \
		-artifact_prefix=$(BUILD)/fuzz/$*/ $(BUILD)/fuzz/$*/corpus \
		>$(BUILD)/fuzz/$*/fuzz.log 2>&1 || \
		{ tail -n 30 $(BUILD)/fuzz/$*/fuzz.log; exit 1; }
	@grep -E '^Done|stat::number_of_executed_units' $(BUILD)/fuzz/$*/fuzz.log | tail -n 2

fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))

# ---------------------------------------------------------------- benchmarks

bench-boot: deps
	@tools/bench/boot.sh

bench-build: deps
	@tools/bench/build.sh

bench-lab: deps
	@tools/bench/lab.sh

bench-l3: deps
	@ARCH=$(ARCH) ACCEL=$(ACCEL) tools/bench/l3.sh

bench-density: deps
	@ARCH=$(ARCH) ACCEL=$(ACCEL) tools/bench/density.sh

bench-faults: deps
	@ARCH=$(ARCH) tools/bench/faults.sh

clean:
	rm -rf $(B)

distclean:
	rm -rf $(BUILD)
