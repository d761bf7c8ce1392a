// SPDX-License-Identifier: GPL-2.0
/*
 * tagalloc: a small allocator that keeps each object's type in its
 * pointer's top bits, the demo workload of `make demo`.
 *
 *   tagalloc [ROUNDS]
 *
 * It asks for tagging with the prctl ABI (PR_SET_TAGGED_ADDR_CTRL with
 * nr_bits/offset, arch_prctl as the fallback), allocates objects whose
 * pointers carry a 6-bit type tag, dereferences them, and hands them to
 * system calls: write() from a tagged buffer, read() into one, and a
 * tagged path for stat(). An untagged helper process shares CPU 0 and
 * exchanges a byte with it each round, so the CPU changes tagging mode
 * twice a round; the helper's last act is to dereference a tagged pointer
 * it may not use (a #GP, caught). Prints what it did.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

#include "../lib/tagging.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif

enum obj_type { OBJ_NODE = 1, OBJ_BUF = 2, OBJ_NAME = 3 };

struct node {
	struct node *next;	/* tagged OBJ_NODE */
	long value;
};

static void *tagged_alloc(size_t size, enum obj_type type)
{
	void *p = calloc(1, size);

	if (!p) {
		perror("tagalloc: calloc");
		exit(1);
	}
	return tag_ptr(p, type);
}

static enum obj_type type_of(const void *p)
{
	return (uintptr_t)p >> TAG_SHIFT & ((1 << TAG_BITS) - 1);
}

static void tagged_free(void *p)
{
	free(tag_ptr(p, 0));
}

static int enable_tagging(void)
{
	int bits = TAG_BITS, offset = 0;

	if (!prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, &bits,
		   &offset, 0)) {
		printf("tagalloc: prctl granted %d tag bits at bit %d\n", bits,
		       offset);
		return 0;
	}
	if (!arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		printf("tagalloc: arch_prctl granted %d tag bits\n", TAG_BITS);
		return 0;
	}
	perror("tagalloc: no pointer tagging on this CPU or kernel");
	return -1;
}

static sigjmp_buf segv;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(segv, 1);
}

/* The untagged side: answer each round, then try one tagged load. */
static void helper(int in, int out, int rounds)
{
	static volatile long v = 42;
	char c;
	int i;

	for (i = 0; i < rounds; i++)
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			_exit(1);
	signal(SIGSEGV, on_segv);
	if (!sigsetjmp(segv, 1)) {
		(void)*(volatile long *)tag_ptr((void *)&v, OBJ_NODE);
		_exit(2);	/* an untagged process must not get here */
	}
	_exit(0);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, ab[2], ba[2], i, devnull;
	const struct timespec pause = { .tv_nsec = 50 * 1000 * 1000 };
	struct node *list = NULL, *n;
	char *buf, *name;
	struct stat st;
	long sum = 0;
	pid_t pid;
	char c = 'x';

	pin_cpu0();
	if (rounds <= 0 || pipe(ab) || pipe(ba))
		return 2;
	pid = fork();
	if (pid == 0)
		helper(ab[0], ba[1], rounds);
	if (enable_tagging())
		return 1;

	buf = tagged_alloc(64, OBJ_BUF);
	name = tagged_alloc(16, OBJ_NAME);
	strcpy(name, "/dev/null");
	devnull = open(name, O_RDWR);	/* a tagged path */
	if (devnull < 0) {
		perror("tagalloc: open with a tagged path");
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		n = tagged_alloc(sizeof(*n), OBJ_NODE);
		n->value = i;
		n->next = list;
		list = n;
		snprintf(buf, 64, "round %d\n", i);
		if (write(devnull, buf, strlen(buf)) < 0 ||
		    read(devnull, buf, 64) < 0 || stat(name, &st) ||
		    write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("tagalloc: a system call with a tagged pointer");
			return 1;
		}
		nanosleep(&pause, NULL);
	}
	for (n = list; n; n = list) {
		if (type_of(n) != OBJ_NODE)
			return 1;
		sum += n->value;
		list = n->next;
		tagged_free(n);
	}
	tagged_free(buf);
	tagged_free(name);
	if (waitpid(pid, &i, 0) != pid || !WIFEXITED(i) || WEXITSTATUS(i)) {
		fprintf(stderr, "tagalloc: the untagged helper failed\n");
		return 1;
	}
	printf("tagalloc: %d rounds, %d tagged objects (sum %ld), %d tagged system calls\n",
	       rounds, rounds + 2, sum, 4 * rounds + 1);
	return 0;
}
