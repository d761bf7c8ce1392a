// SPDX-License-Identifier: GPL-2.0
/*
 * stackgp: a tagged dereference three calls deep, for the frames tagtrace
 * and bpftrace name.
 *
 *   stackgp N [--die]
 *
 * main -> stack_top -> stack_mid -> stack_leaf, which loads through a
 * pointer with tag 5 in bits 62:57 while tagging is off: a #GP. N times,
 * each caught (SIGSEGV, siglongjmp); then it waits for stdin to close, so
 * that a tracer resolving symbols from /proc/PID/maps finds it alive.
 * With --die the first #GP is not caught and kills it: only what was
 * recorded at the event can name the functions then. Built with frame
 * pointers and no sibling calls, and stack_leaf makes a call before it
 * faults (a function that faults before it pushed its frame hides its
 * caller from a frame-pointer walk), so the user stack walks to main.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf again;
static long target = 42;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(again, 1);
}

/* A call first, so that stack_leaf has its own frame when it faults. */
__attribute__((noinline)) static void stack_touch(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static long stack_leaf(volatile long *p)
{
	stack_touch();
	return *p;
}

__attribute__((noinline)) static long stack_mid(volatile long *p)
{
	return stack_leaf(p) + 1;
}

__attribute__((noinline)) static long stack_top(volatile long *p)
{
	return stack_mid(p) + 1;
}

int main(int argc, char **argv)
{
	volatile long *tagged = (long *)((uintptr_t)&target | 5ULL << 57);
	struct sigaction sa;
	volatile int caught = 0, i;
	int n;
	char c;

	if (argc < 2 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: stackgp N [--die]\n");
		return 2;
	}
	if (argc > 2 && !strcmp(argv[2], "--die")) {
		printf("dying\n");
		fflush(stdout);
		return (int)stack_top(tagged);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (i = 0; i < n; i++)
		if (sigsetjmp(again, 1))
			caught++;
		else
			stack_top(tagged);
	printf("caught %d\n", caught);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return caught == n ? 0 : 1;
}
