// SPDX-License-Identifier: GPL-2.0
/*
 * tagged_bench: the two hot paths the tagged_addr tracepoints sit on.
 *
 *   tagged_bench [SYSCALLS ROUNDS REPEATS [tagged|untagged]]
 *
 * tagged (the default): syscall is uname() with a tagged buffer in a
 * tagging-enabled process (one user-limit check of a tagged pointer per
 * call); pingpong is a tagged and an untagged process on CPU 0 passing a
 * byte through pipes (two mode switches a round). untagged: the same
 * loops with no process enabling tagging and plain pointers, what every
 * other program on the machine runs (it works on any kernel).
 * Prints the mean of REPEATS runs of each (not the best: a figure that
 * can only fall as runs are added hides the slow ones), in ns per
 * operation, as
 * "syscall_ns=... pingpong_ns=..." for tests/bench/trace-overhead.sh and
 * tests/bench/lass-bench.sh. Then one more ping-pong of REPEATS * ROUNDS
 * rounds, each round timed on its own (one clock_gettime() a round, in
 * the vDSO): the 10th, 50th and 90th percentile round trip, as
 * pingpong_p10_ns, pingpong_median_ns and pingpong_p90_ns. A round that
 * took a timer interrupt or a wake-up of another task moves the mean but
 * not the median, which under --icount is the same in every boot.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <time.h>

#include "../lib/tagging.h"

static int tagged = 1;

/* Enable tagging in this process, in the tagged runs only. */
static int enable(void)
{
	return tagged ? prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE,
			      0, 0, 0) : 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double syscall_loop(long n)
{
	struct utsname *u = malloc(sizeof(*u));
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		if (uname(tagged ? tag_ptr(u, 1 + i % 63) : u))
			exit(1);
	free(u);
	return (now_ns() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Start the ping-pong's other side, a child that enables tagging in the
 * tagged runs and answers each byte on ab with one on ba.
 */
static pid_t partner(int ab[2], int ba[2], long rounds)
{
	char c;
	long i;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (pid == 0) {
		if (enable())
			_exit(2);
		for (i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(3);
		_exit(0);
	}
	return pid;
}

static void part(pid_t pid, int ab[2], int ba[2])
{
	waitpid(pid, NULL, 0);
	close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
}

/* The round trips' 10th, 50th and 90th percentiles, each timed alone. */
static void pingpong_rounds(long rounds, double pct[3])
{
	double t, *round = malloc(rounds * sizeof(*round));
	int ab[2], ba[2];
	char c = 0;
	long i;
	pid_t pid;

	if (!round)
		exit(1);
	pid = partner(ab, ba, rounds);
	/* Fault the array in (and out of the fork's COW) before timing. */
	memset(round, 0, rounds * sizeof(*round));
	t = now_ns();
	for (i = 0; i < rounds; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
		round[i] = now_ns();
		round[i] -= t;
		t += round[i];
	}
	part(pid, ab, ba);
	qsort(round, rounds, sizeof(*round), cmp_double);
	pct[0] = round[(rounds - 1) / 10];
	pct[1] = round[(rounds - 1) / 2];
	pct[2] = round[(rounds - 1) * 9 / 10];
	free(round);
}

static double pingpong(long rounds)
{
	int ab[2], ba[2];
	double t0;
	char c = 0;
	long i;
	pid_t pid = partner(ab, ba, rounds);

	t0 = now_ns();
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
	t0 = (now_ns() - t0) / rounds;
	part(pid, ab, ba);
	return t0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long rounds = argc > 2 ? atol(argv[2]) : 20000;
	int reps = argc > 3 ? atoi(argv[3]) : 5, r;
	double sum_sys = 0, sum_pp = 0, v, pct[3];
	cpu_set_t cpu0;
	pid_t pid;
	int status;

	if (argc > 4 && strcmp(argv[4], "tagged")) {
		if (strcmp(argv[4], "untagged")) {
			fprintf(stderr, "tagged_bench: mode is tagged or untagged, not '%s'\n",
				argv[4]);
			return 2;
		}
		tagged = 0;
	}
	if (n < 1 || rounds < 1 || reps < 1) {
		fprintf(stderr, "tagged_bench: SYSCALLS, ROUNDS and REPEATS must be at least 1\n");
		return 2;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return 1;
	for (r = 0; r < reps; r++) {
		v = pingpong(rounds);
		sum_pp += v;
	}
	/* The syscall loop runs in a child, tagged or not, as pingpong's. */
	for (r = 0; r < reps; r++) {
		int p[2];

		if (pipe(p))
			return 1;
		pid = fork();
		if (pid == 0) {
			if (enable())
				_exit(2);
			v = syscall_loop(n);
			_exit(write(p[1], &v, sizeof(v)) != sizeof(v));
		}
		if (read(p[0], &v, sizeof(v)) != sizeof(v))
			return 1;
		waitpid(pid, &status, 0);
		close(p[0]);
		close(p[1]);
		sum_sys += v;
	}
	pingpong_rounds(rounds * reps, pct);
	printf("syscall_ns=%.1f\npingpong_ns=%.1f\n", sum_sys / reps, sum_pp / reps);
	printf("pingpong_p10_ns=%.1f\npingpong_median_ns=%.1f\npingpong_p90_ns=%.1f\n",
	       pct[0], pct[1], pct[2]);
	return 0;
}
