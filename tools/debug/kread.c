// SPDX-License-Identifier: GPL-2.0
/*
 * kread SYMBOL: print, in decimal, the 32-bit integer at a kernel data
 * symbol, read through /proc/kcore.  For guest tests that must check
 * kernel state no file shows (make stress-l3: the count of the static key
 * l3net_active, the first member of a static_key).  Needs the DEBUG=1
 * kernel: CONFIG_PROC_KCORE and CONFIG_KALLSYMS_ALL.
 *
 * Exit: 0 printed, 1 the symbol or its memory is not readable (the reason
 * on stderr, prefixed "kread: "), 2 usage.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "kread: %s: %s\n", what, why);
	return 1;
}

/* The address of SYMBOL in /proc/kallsyms, 0 if absent or hidden. */
static uint64_t symbol_address(const char *symbol)
{
	char line[512], name[256], type;
	uint64_t addr = 0, a;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, symbol)) {
			addr = a;
			break;
		}
	}
	fclose(f);
	return addr;
}

/* The offset in /proc/kcore of kernel address ADDR, -1 if not mapped. */
static off_t kcore_offset(int fd, uint64_t addr, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr + len <= ph.p_vaddr + ph.p_memsz)
			return ph.p_offset + (addr - ph.p_vaddr);
	}
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t addr;
	int32_t value;
	off_t off;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: kread SYMBOL\n");
		return 2;
	}
	addr = symbol_address(argv[1]);
	if (!addr)
		return fail(argv[1], "not in /proc/kallsyms (CONFIG_KALLSYMS_ALL off, or kptr_restrict hides it)");
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		return fail("/proc/kcore", strerror(errno));
	off = kcore_offset(fd, addr, sizeof(value));
	if (off < 0)
		return fail(argv[1], "its address is in no segment of /proc/kcore");
	if (pread(fd, &value, sizeof(value), off) != sizeof(value))
		return fail(argv[1], "reading /proc/kcore failed");
	close(fd);
	printf("%" PRId32 "\n", value);
	return 0;
}
