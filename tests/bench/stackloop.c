// SPDX-License-Identifier: GPL-2.0
/*
 * stackloop [ROUNDS]: what a stack reference costs the emulator, as a
 * ratio that the host's load does not move much (for
 * tests/bench/stackcheck.sh, built and run in the guest).
 *
 * Three loops of the same number of iterations, run in turn ROUNDS times
 * (default 30), each turn a few tens of ms, so that all three see the same
 * share of a loaded host:
 *   alu    four dependent register operations an iteration
 *   push   the same four, each with a PUSH and a POP of its register
 *          (eight stack references)
 *   call   a call of a function with a frame pointer that keeps its
 *          argument in a stack slot: CALL, PUSH %rbp, a store and a load
 *          through %rbp, POP %rbp, RET (six stack references)
 * Prints the median ns per iteration of each loop and push/alu and
 * call/alu in thousandths (push_per_mille=N, call_per_mille=N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS	2000000L
#define MAX_ROUNDS 200

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long alu(long n)
{
	long s = 1, i;

	for (i = 0; i < n; i++)
		asm volatile("add %1, %0\n\txor $5, %0\n\tadd $3, %0\n\tshl $1, %0"
			     : "+r" (s) : "r" (i));
	return s;
}

static long push(long n)
{
	long s = 1, i;

	for (i = 0; i < n; i++)
		asm volatile("push %0\n\tpop %0\n\tadd %1, %0\n\t"
			     "push %0\n\tpop %0\n\txor $5, %0\n\t"
			     "push %0\n\tpop %0\n\tadd $3, %0\n\t"
			     "push %0\n\tpop %0\n\tshl $1, %0"
			     : "+r" (s) : "r" (i) : "memory");
	return s;
}

__attribute__((noinline, optimize("no-omit-frame-pointer")))
static long leaf(long a)
{
	volatile long slot = a;

	return slot + 3;
}

static long call(long n)
{
	long s = 1, i;

	for (i = 0; i < n; i++)
		s = leaf(s ^ i);
	return s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	static double t[3][MAX_ROUNDS];
	long (*loop[3])(long) = { alu, push, call };
	int rounds = argc > 1 ? atoi(argv[1]) : 30;
	volatile long sink = 0;
	double m[3];
	int r, k;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: stackloop [ROUNDS 1-%d]\n", MAX_ROUNDS);
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 3; k++) {
			double t0 = now_ns();

			sink += loop[k](ITERS);
			t[k][r] = (now_ns() - t0) / ITERS;
		}
	}
	for (k = 0; k < 3; k++)
		m[k] = median(t[k], rounds);
	printf("alu_ns=%.2f\npush_ns=%.2f\ncall_ns=%.2f\n", m[0], m[1], m[2]);
	printf("push_per_mille=%.0f\ncall_per_mille=%.0f\n",
	       1000 * m[1] / m[0], 1000 * m[2] / m[0]);
	return 0;
}
