// SPDX-License-Identifier: GPL-2.0
/*
 * tagloop: one process whose tagging events are known exactly, for
 * tagtrace's filter and process-identity tests.
 *
 *   tagloop N [--pages | --reads | --mixed M | --until FILE] [--thread NAME]
 *           [--exec PATH] [--u48 FIRST]
 *
 * N > 0: enable tagging (arch_prctl, so upstream LAM works too), then one
 * ARCH_GET_UNTAG_MASK query and N uname() calls through a tagged buffer:
 * two ctrl events and N untags. --pages writes N fresh pages through
 * tagged pointers instead (N tagged faults; upstream LAM, which refuses
 * tagged system calls, too). --reads has read() fill N fresh pages from
 * /dev/zero through untagged pointers while %rbx, which no system call
 * takes, holds a tagged pointer to the same page: N faults in the kernel,
 * none through a tagged pointer. --mixed M writes N fresh pages through
 * pointers with tag 44, then M fresh pages through untagged ones while the
 * last tagged pointer, 64 KiB or less away, stays live in a register (an
 * empty asm uses it after the loop, as gcc -O2 kept it in the issue's
 * program): N faults through a tagged pointer, M not, and it prints
 * "region=START" (the first page) after "pid=PID". --u48 asks for 15 tag
 * bits (LAM_U48: bits 62:48) and makes call or page i use tag FIRST + i
 * (mod 32768, 0 skipped) instead, so that N calls from FIRST >= 64 use N
 * distinct values past the 6-bit range. N = 0: the query alone. --thread makes the
 * query and the calls in a second thread named NAME (tagging is enabled
 * before it exists, as LAM requires) while the process keeps its own name.
 * --exec then execs PATH (a tagged process is untagged again). --until
 * goes on with uname() calls, past N, until FILE exists (looked for every
 * 1024 calls), then prints "calls=TOTAL".
 * Prints "pid=PID" first; exits 0 when every call behaved.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <fcntl.h>

#include "../lib/tagging.h"

static long calls, made;
static const char *until;
static bool pages, reads;
static long mixed;
static long u48 = -1;		/* --u48 FIRST: 15-bit tags from FIRST */

/* Pointer p with the tag of call or page i: 6 bits at 57, or 15 at 48. */
static void *tag_i(const void *p, long i, unsigned long tag6)
{
	unsigned long t;

	if (u48 < 0)
		return tag_ptr(p, tag6);
	t = (u48 + i) % 32767 + 1;	/* 1..32767: never untagged */
	return (void *)(((uintptr_t)p & ~(0x7fffULL << 48)) |
			((uint64_t)t << 48));
}
static int zero_fd;
static struct utsname u;
static char *region;

/* read(fd, buf, n) with %rbx holding rbx, as a callee-saved value would. */
static long read_rbx(int fd, void *buf, size_t n, unsigned long rbx)
{
	long ret;

	asm volatile("syscall"
		     : "=a" (ret)
		     : "0" ((long)SYS_read), "D" ((long)fd), "S" (buf),
		       "d" (n), "b" (rbx)
		     : "rcx", "r11", "memory");
	return ret;
}

/* --mixed: see the top of the file. */
__attribute__((noinline)) static void mixed_pages(void)
{
	volatile char *t = NULL;
	long i;

	for (i = 0; i < calls; i++) {
		t = tag_ptr(region + i * 4096L, 44);
		*t = 1;
	}
	for (; i < calls + mixed; i++)
		*(volatile char *)(region + i * 4096L) = 1;
	asm volatile("" : : "r" (t));
}

static void *work(void *name)
{
	unsigned long mask = 0;
	long i;

	if (name)
		prctl(PR_SET_NAME, name);
	if (arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask))
		return (void *)1;
	if (mixed) {
		mixed_pages();
		made = calls + mixed;
		return NULL;
	}
	for (i = 0; i < calls || (until && (i % 1024 || access(until, F_OK)));
	     i++) {
		char *page = region + i * 4096L;

		if (pages) {
			*(volatile char *)tag_i(page, i, 0x2a) = 1;
		} else if (reads) {
			if (read_rbx(zero_fd, page, 1,
				     (unsigned long)tag_ptr(page, 0x2a)) != 1)
				return (void *)4;
		} else if (uname(tag_i(&u, i, 1 + i % 63))) {
			return (void *)3;
		}
	}
	made = i;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *thread = NULL, *exec = NULL;
	void *ret;
	pthread_t t;
	int i;

	if (argc < 2)
		goto usage;
	calls = atol(argv[1]);
	if (calls < 0)
		goto usage;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--pages"))
			pages = true;
		else if (!strcmp(argv[i], "--reads"))
			reads = true;
		else if (!strcmp(argv[i], "--mixed") && i + 1 < argc)
			mixed = atol(argv[++i]);
		else if (!strcmp(argv[i], "--u48") && i + 1 < argc)
			u48 = atol(argv[++i]);
		else if (!strcmp(argv[i], "--thread") && i + 1 < argc)
			thread = argv[++i];
		else if (!strcmp(argv[i], "--exec") && i + 1 < argc)
			exec = argv[++i];
		else if (!strcmp(argv[i], "--until") && i + 1 < argc)
			until = argv[++i];
		else
			goto usage;
	}
	if (until && (pages || reads || !calls))
		goto usage;
	if (mixed < 0 || (mixed && (pages || reads || until || !calls)))
		goto usage;
	printf("pid=%d\n", getpid());
	fflush(stdout);
	memset(&u, 0, sizeof(u));	/* no fault at a tagged address */
	zero_fd = open("/dev/zero", O_RDONLY);
	if (zero_fd < 0)
		return 1;
	/* A page a call for --pages and --reads; uname() needs none. */
	region = mmap(NULL, (pages || reads || mixed ? calls + mixed + 1 : 1) *
		      4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (region == MAP_FAILED)
		return 1;
	if (mixed) {
		printf("region=%p\n", (void *)region);
		fflush(stdout);
	}
	if (calls && arch_prctl(ARCH_ENABLE_TAGGED_ADDR,
				u48 < 0 ? TAG_BITS : 15)) {
		perror("tagloop: ARCH_ENABLE_TAGGED_ADDR");
		return 1;
	}
	if (thread) {
		if (pthread_create(&t, NULL, work, (void *)thread) ||
		    pthread_join(t, &ret))
			return 1;
	} else {
		ret = work(NULL);
	}
	if (ret) {
		fprintf(stderr, "tagloop: step %ld failed\n", (long)ret);
		return 1;
	}
	if (until)
		printf("calls=%ld\n", made);
	if (exec) {
		execl(exec, exec, (char *)NULL);
		perror("tagloop: exec");
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: tagloop N [--pages | --reads | --mixed M | --until FILE] [--thread NAME] [--exec PATH] [--u48 FIRST]\n");
	return 2;
}
