// SPDX-License-Identifier: GPL-2.0
/*
 * batches: tagged system calls in bursts and pauses, for tagtrace trace's
 * wake-up rules (tests/tool/batch-guest.sh).
 *
 *   batches STEP...
 *
 * Each STEP is N, a burst of N uname() calls through a tagged buffer (one
 * untag each), pU, a pair of such calls U us apart (a busy wait), or sM,
 * a pause of M ms. It enables tagging (arch_prctl)
 * and runs as SCHED_FIFO on CPU 0: on a one-CPU guest no other task runs
 * during a burst, so every record of a burst is queued before the reader
 * can take any, and the reader runs only in the pauses. Prints one line
 * per burst or pair, "burst N START END" or "pair 2 START END"
 * (CLOCK_MONOTONIC ns, the clock of BPF's timestamps, around it), and
 * exits 0 when every call behaved.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/utsname.h>

#include "../lib/tagging.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param fifo = { .sched_priority = 1 };
	struct utsname *u = malloc(sizeof(*u));
	unsigned long long t0;
	cpu_set_t cpu0;
	long i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: batches STEP...\n");
		return 2;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (!u || sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
	    sched_setscheduler(0, SCHED_FIFO, &fifo) ||
	    arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		perror("batches: setting up");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == 's') {
			struct timespec ts = { 0, atol(argv[i] + 1) * 1000000L };

			ts.tv_sec = ts.tv_nsec / 1000000000L;
			ts.tv_nsec %= 1000000000L;
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
			continue;
		}
		t0 = now_ns();
		if (argv[i][0] == 'p') {
			if (uname(tag_ptr(u, 1)))
				return 1;
			while (now_ns() < t0 + atol(argv[i] + 1) * 1000ULL)
				;
			if (uname(tag_ptr(u, 2)))
				return 1;
			printf("pair 2 %llu %llu\n", t0, now_ns());
			fflush(stdout);
			continue;
		}
		for (n = atol(argv[i]); n > 0; n--)
			if (uname(tag_ptr(u, 1 + n % 63)))
				return 1;
		printf("burst %s %llu %llu\n", argv[i], t0, now_ns());
		fflush(stdout);
	}
	return 0;
}
