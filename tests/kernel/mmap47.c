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
 * 0x00ad000000000100 is not mapped. MAP_FIXED_NOREPLACE, shmat() and
 * mremap() (moved to 2^48, moved onto a range that straddles the boundary,
 * grown in place across it) fail with ENOMEM there and unmap nothing; an
 * untagged child shows that each of them maps above 47 bits otherwise.
 * Before UAI is enabled, a child hits a uprobe set through tracefs on a
 * function of this program: its uprobes XOL page must lie below 47 bits,
 * so that it can still enable UAI. Prints TAP; exits 1 on a failure.
 */
#define _GNU_SOURCE
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
#include <sys/shm.h>
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
#define TRACEFS		"/sys/kernel/tracing"
#define PAGE		4096UL

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

static int enable_uai(void)
{
	return arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS) == 0;
}

/* A page at addr with shmat(): the address, or 0 with errno set. */
static unsigned long shm_at(unsigned long addr)
{
	int id = shmget(IPC_PRIVATE, PAGE, IPC_CREAT | 0600), err;
	void *p;

	if (id < 0)
		return 0;
	p = shmat(id, (void *)addr, 0);
	err = errno;
	shmctl(id, IPC_RMID, NULL);
	errno = err;
	return p == (void *)-1 ? 0 : (unsigned long)p;
}

/* mremap() one page to addr: the address, or 0 with errno set. */
static unsigned long move_to(unsigned long addr)
{
	unsigned long src = map(0, PAGE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	void *p;

	if (!src)
		return 0;
	p = mremap((void *)src, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)addr);
	if (p == MAP_FAILED) {
		int err = errno;

		munmap((void *)src, PAGE);
		errno = err;
		return 0;
	}
	return (unsigned long)p;
}

/*
 * In an untagged child: which of MAP_FIXED_NOREPLACE, shmat() and a fixed
 * mremap() map at 2^48 (bits 0, 1, 2 of the answer)?
 */
static int untagged_child_fixed(void)
{
	int fds[2], status, got = -1;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		got = (map(HINT, PAGE, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_FIXED_NOREPLACE, -1) == HINT) |
		      (shm_at(HINT + PAGE) == HINT + PAGE) << 1 |
		      (move_to(HINT + 2 * PAGE) == HINT + 2 * PAGE) << 2;
		_exit(write(fds[1], &got, sizeof(got)) != sizeof(got));
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &got, sizeof(got)) != sizeof(got))
		got = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return got;
}

/*
 * The fixed requests of a UAI mm above 47 bits: refused with ENOMEM, and
 * nothing below the boundary unmapped on the way. The page below
 * DEFAULT_MAP_WINDOW is the victim a straddling request would take.
 */
static void fixed_checks(const char *layout)
{
	unsigned long addr, victim, src;
	void *p;

	addr = map(HINT, PAGE, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_FIXED_NOREPLACE, -1);
	report(addr, PAGE);
	check(!addr && errno == ENOMEM,
	      "%s: MAP_FIXED_NOREPLACE at 2^48 fails with ENOMEM", layout);

	addr = shm_at(HINT);
	report(addr, PAGE);
	check(!addr && errno == ENOMEM,
	      "%s: shmat() at 2^48 fails with ENOMEM", layout);

	addr = move_to(HINT);
	report(addr, PAGE);
	check(!addr && errno == ENOMEM,
	      "%s: mremap(MREMAP_FIXED) to 2^48 fails with ENOMEM", layout);

	victim = map(WINDOW - PAGE, PAGE, MAP_PRIVATE | MAP_ANONYMOUS |
		     MAP_FIXED_NOREPLACE, -1);
	check(victim == WINDOW - PAGE,
	      "%s: the last page below 47 bits maps (MAP_FIXED_NOREPLACE at %#lx)",
	      layout, WINDOW - PAGE);
	if (victim != WINDOW - PAGE)
		return;
	*(volatile char *)victim = 0x5a;

	src = map(0, 2 * PAGE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	p = src ? mremap((void *)src, 2 * PAGE, 2 * PAGE,
			 MREMAP_MAYMOVE | MREMAP_FIXED, (void *)victim) :
		  MAP_FAILED;
	if (p == MAP_FAILED)
		report(0, 2 * PAGE);
	check(src && p == MAP_FAILED && errno == ENOMEM &&
	      mapped(victim) && *(volatile char *)victim == 0x5a,
	      "%s: mremap(MREMAP_FIXED) onto %#lx-%#lx fails with ENOMEM and leaves the page below 47 bits mapped",
	      layout, victim, victim + 2 * PAGE);
	if (src && p == MAP_FAILED)
		munmap((void *)src, 2 * PAGE);

	/* Without the fix above the victim is gone: map it again. */
	if (!mapped(victim))
		map(victim, PAGE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_FIXED_NOREPLACE, -1);
	p = mremap((void *)victim, PAGE, 2 * PAGE, 0);
	if (p == MAP_FAILED)
		report(0, 2 * PAGE);
	check(p == MAP_FAILED && errno == ENOMEM && mapped(victim) &&
	      !mapped(victim + PAGE),
	      "%s: mremap() growing %#lx in place across 47 bits fails with ENOMEM",
	      layout, victim);
	munmap((void *)victim, 2 * PAGE);
}

/*
 * The function the uprobe is set on. Its first instruction is a plain
 * move, which x86 does not emulate: hitting the probe single-steps it in
 * the process's XOL page.
 */
unsigned long mmap47_probed(unsigned long x);
asm(".text\n"
    ".globl mmap47_probed\n"
    ".type mmap47_probed, @function\n"
    "mmap47_probed:\n"
    "	movq %rdi, %rax\n"
    "	addq $1, %rax\n"
    "	ret\n"
    ".size mmap47_probed, . - mmap47_probed\n");

static int tracefs_write(const char *file, const char *text)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return 0;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* The start of the mapping named name in /proc/self/maps, 0 if none. */
static unsigned long maps_find(const char *name, unsigned long addr,
			       unsigned long *file_off)
{
	unsigned long start, end, off, found = 0;
	char line[512], perm[8], path[256];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end,
			   perm, &off, path) < 4)
			continue;
		if ((name && !strcmp(path, name)) ||
		    (!name && addr >= start && addr < end)) {
			found = start;
			if (file_off)
				*file_off = off + addr - start;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * A process that hit a uprobe can still enable UAI: its XOL page is below
 * 47 bits. The probe is on mmap47_probed() in this very file; a child,
 * not yet tagged, calls it, reads where its XOL page went and enables UAI.
 */
static void uprobe_checks(void)
{
	unsigned long off = 0, got[3] = { 0, 0, 0 };
	char exe[256], event[400];
	int fds[2], status, set;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	maps_find(NULL, (unsigned long)mmap47_probed, &off);
	snprintf(event, sizeof(event), "p:mmap47/xol %s:%#lx\n", exe, off);
	set = n > 0 && off && tracefs_write("uprobe_events", event) &&
	      tracefs_write("events/mmap47/xol/enable", "1\n");
	check(set, "a uprobe is set on mmap47_probed (%s+%#lx) through tracefs",
	      exe, off);
	if (!set || pipe(fds))
		goto out;
	pid = fork();
	if (pid == 0) {
		got[0] = mmap47_probed(41);
		got[1] = maps_find("[uprobes]", 0, NULL);
		got[2] = enable_uai() ? 0 : errno;
		_exit(write(fds[1], got, sizeof(got)) != sizeof(got));
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], got, sizeof(got)) != sizeof(got))
		memset(got, 0, sizeof(got));
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	printf("# the child's XOL page: %#lx\n", got[1]);
	check(got[0] == 42 && got[1],
	      "a child that hit the uprobe has an XOL page ([uprobes])");
	check(got[1] && got[1] + PAGE <= WINDOW,
	      "its XOL page lies below 47 bits");
	check(got[0] == 42 && !got[2],
	      "it then enables UAI (%s)", got[2] ? strerror(got[2]) : "ok");
out:
	tracefs_write("events/mmap47/xol/enable", "0\n");
	tracefs_write("uprobe_events", "-:mmap47/xol\n");
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

	fixed_checks(layout);

	/* Whatever the checks above left mapped: never the poison's alias. */
	addr = map(POISON_ALIAS & ~(HUGE_2M - 1), HUGE_2M, huge, -1);
	report(addr, HUGE_2M);
	check(!mapped(POISON_ALIAS),
	      "%s: %#lx (LIST_POISON1 as UAI accesses it) is not mapped",
	      layout, POISON_ALIAS);
	if (big)
		munmap((void *)big, len);
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
	check(untagged_child_fixed() == 7,
	      "untagged: MAP_FIXED_NOREPLACE, shmat() and mremap(MREMAP_FIXED) map at 2^48");
	uprobe_checks();

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
