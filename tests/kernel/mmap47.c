// SPDX-License-Identifier: GPL-2.0
/*
 * mmap47: a process that uses UAI maps nothing at or above 47 bits, also
 * through hugetlb, whose x86 placement code is separate from the generic
 * one. With UAI on, the kernel's own data accesses ignore bits 63:57, so
 * under 5-level paging the poison pointer LIST_POISON1 (0xdead000000000100)
 * is accessed as the user address 0x00ad000000000100: the process must not
 * be able to map it.
 *
 * Run in the guest on --cpu uai --la57 --append mitigations=off (UAI
 * offered). It first proves, in untagged children, that this machine
 * maps above 47 bits for a high hint (plain and MAP_HUGETLB), so that the
 * checks below can fail; then enables UAI and, in the top-down layout and
 * again in the bottom-up one (ADDR_COMPAT_LAYOUT, re-executed), checks
 * that a 2^48 hint, a length that does not fit below 47 bits, a hugetlbfs
 * file and MAP_FIXED all stay below DEFAULT_MAP_WINDOW, and that
 * 0x00ad000000000100 is not mapped. Prints TAP; exits 1 on a failure.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tagging.h"
#include "../lib/tap-check.h"

#define WINDOW		((1UL << 47) - 4096)	/* DEFAULT_MAP_WINDOW */
#define HINT		(1UL << 48)
#define HUGE_2M		(2UL << 20)
#define POISON_ALIAS	0x00ad000000000100UL	/* LIST_POISON1 under UAI */
#define HUGETLBFS	"/tmp/mmap47-hugetlbfs"

static int cpuid_bit(unsigned int leaf, unsigned int sub, int reg, int bit)
{
	unsigned int r[4];

	if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]))
		return 0;
	return (r[reg] >> bit) & 1;
}

/* mmap() as a number: the address, or 0 with errno set on failure. */
static unsigned long map(unsigned long hint, unsigned long len, int flags,
			 int fd)
{
	void *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE, flags, fd, 0);

	return p == MAP_FAILED ? 0 : (unsigned long)p;
}

/* A mapping (or a refusal) that keeps the mm below 47 bits. */
static int below(unsigned long addr, unsigned long len)
{
	return !addr || (addr + len <= WINDOW && addr + len > addr);
}

static void report(unsigned long addr, unsigned long len)
{
	if (addr)
		printf("# mapped at %#lx-%#lx\n", addr, addr + len);
	else
		printf("# refused: %s\n", strerror(errno));
}

/* Is the page of addr mapped? mincore() fails with ENOMEM where not. */
static int mapped(unsigned long addr)
{
	unsigned char vec;

	return mincore((void *)(addr & ~4095UL), 4096, &vec) == 0;
}

/* In an untagged child: where does a 2^48 hint put this mapping? */
static unsigned long untagged_child_map(unsigned long len, int flags)
{
	int fds[2], status;
	unsigned long addr = 0;
	pid_t pid;

	if (pipe(fds))
		return 0;
	pid = fork();
	if (pid == 0) {
		addr = map(HINT, len, flags, -1);
		if (write(fds[1], &addr, sizeof(addr)) != sizeof(addr))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &addr, sizeof(addr)) != sizeof(addr))
		addr = 0;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return addr;
}

static void layout_checks(const char *layout)
{
	int anon = MAP_PRIVATE | MAP_ANONYMOUS;
	int huge = anon | MAP_HUGETLB | MAP_NORESERVE;
	unsigned long addr, len, big;
	char path[64];
	int fd;

	addr = map(0, 4096, anon, -1);
	report(addr, 4096);
	check(addr && (strcmp(layout, "bottom-up") ? addr > (1UL << 46) :
		       addr < (1UL << 46)),
	      "%s: the %s layout is in effect (a plain mmap() lands %s 2^46)",
	      layout, layout, strcmp(layout, "bottom-up") ? "above" : "below");

	addr = map(HINT, 4096, anon, -1);
	report(addr, 4096);
	check(addr && below(addr, 4096),
	      "%s: mmap() with a 2^48 hint maps below 47 bits", layout);

	addr = map(HINT, HUGE_2M, huge, -1);
	report(addr, HUGE_2M);
	check(addr && below(addr, HUGE_2M),
	      "%s: MAP_HUGETLB|MAP_NORESERVE with a 2^48 hint maps below 47 bits",
	      layout);

	/* 3 * 2^54 bytes: above 47 bits it would reach over POISON_ALIAS. */
	len = 3UL << 54;
	addr = map(HINT, len, huge, -1);
	report(addr, len);
	big = addr;
	check(below(addr, len),
	      "%s: MAP_HUGETLB|MAP_NORESERVE of 3 * 2^54 bytes with a 2^48 hint is refused or below 47 bits",
	      layout);

	snprintf(path, sizeof(path), HUGETLBFS "/%s", layout);
	fd = open(path, O_CREAT | O_RDWR, 0600);
	addr = fd < 0 ? 0 : map(HINT, HUGE_2M, MAP_SHARED | MAP_NORESERVE, fd);
	report(addr, HUGE_2M);
	check(fd >= 0 && addr && below(addr, HUGE_2M),
	      "%s: a hugetlbfs file mapped with a 2^48 hint lies below 47 bits",
	      layout);
	if (fd >= 0)
		close(fd);

	addr = map(HINT, HUGE_2M, huge | MAP_FIXED, -1);
	report(addr, HUGE_2M);
	check(!addr && errno == ENOMEM,
	      "%s: MAP_HUGETLB|MAP_FIXED at 2^48 fails with ENOMEM", layout);

	/* Whatever the checks above left mapped: never the poison's alias. */
	addr = map(POISON_ALIAS & ~(HUGE_2M - 1), HUGE_2M, huge, -1);
	report(addr, HUGE_2M);
	check(!mapped(POISON_ALIAS),
	      "%s: %#lx (LIST_POISON1 as UAI accesses it) is not mapped",
	      layout, POISON_ALIAS);
	if (big)
		munmap((void *)big, len);
}

static int enable_uai(void)
{
	return arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS) == 0;
}

int main(int argc, char **argv)
{
	int status = 0, huge = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			   MAP_NORESERVE;
	unsigned long addr;
	pid_t pid;

	/* The re-executed child: the bottom-up layout, numbered after us. */
	if (argc == 3 && !strcmp(argv[1], "bottom-up")) {
		tap_tests = atoi(argv[2]);
		check(enable_uai(), "bottom-up: UAI enabled again after execve()");
		layout_checks("bottom-up");
		return tap_end();
	}

	check(cpuid_bit(0x80000021, 0, 0, 7) && !cpuid_bit(7, 1, 0, 26),
	      "the CPU has UAI and not LAM (boot with --cpu uai)");
	mkdir(HUGETLBFS, 0700);
	if (mount("none", HUGETLBFS, "hugetlbfs", 0, ""))
		check(0, "hugetlbfs mounts on " HUGETLBFS ": %s", strerror(errno));
	else
		check(1, "hugetlbfs mounts on " HUGETLBFS);

	addr = untagged_child_map(4096, MAP_PRIVATE | MAP_ANONYMOUS);
	report(addr, 4096);
	check(addr >= (1UL << 47),
	      "untagged: a 2^48 hint maps above 47 bits (5-level paging, --la57)");
	addr = untagged_child_map(HUGE_2M, huge);
	report(addr, HUGE_2M);
	check(addr >= (1UL << 47),
	      "untagged: MAP_HUGETLB with a 2^48 hint maps above 47 bits");

	check(enable_uai(), "UAI enabled (ARCH_ENABLE_TAGGED_ADDR; needs mitigations=off)");
	layout_checks("top-down");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char n[16];

		snprintf(n, sizeof(n), "%d", tap_tests);
		if (personality(ADDR_COMPAT_LAYOUT) < 0)
			_exit(3);
		execl("/proc/self/exe", argv[0], "bottom-up", n, (char *)NULL);
		_exit(4);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1) {
		check(0, "the bottom-up child ran (status %#x)", status);
		return tap_end();
	}
	umount(HUGETLBFS);
	return tap_failed || WEXITSTATUS(status);
}
