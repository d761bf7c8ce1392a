// SPDX-License-Identifier: GPL-2.0
/*
 * switch_order ROUNDS: with the switch_order test module loaded
 * (tests/kernel/modules/switch_order.c: a kprobe right after the context
 * switch publishes loaded_mm), a process with tagging on and one without
 * pass a byte back and forth ROUNDS times on CPU 0, so each round
 * switches into the tagged mm and out of it again (the partner says it
 * is ready once its tagging is on, before the first round). Then what the module
 * found at each publication of loaded_mm: at least 2 * ROUNDS of them to
 * an mm with an untag mask other than the last one's, and at every one
 * the CPU's untag mask already the new mm's, and on UAI EFER.UAI already
 * the new mm's mode. Tagging is enabled with ARCH_ENABLE_TAGGED_ADDR,
 * which upstream 6.12 has too. Prints TAP.
 *
 * switch_order --both ROUNDS: the same ping-pong with tagging on in both
 * processes, and no module: switches between two tagged mms, for
 * tests/kernel/efer-guest.sh, which reads the trace. Prints the two
 * processes' PIDs as "# pids=A B".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../lib/tagging.h"
#include "../lib/tap-check.h"

int main(int argc, char **argv)
{
	int checks = -1, changes = -1, bad = -1, efer_bad = -1, status = -1;
	int both = argc > 1 && !strcmp(argv[1], "--both");
	long rounds = argc > 1 + both ? atol(argv[1 + both]) : 0, i;
	int ab[2], ba[2];
	cpu_set_t cpus;
	char c = 0;
	pid_t pid;
	FILE *f;

	if (rounds <= 0) {
		fprintf(stderr, "usage: switch_order [--both] ROUNDS\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || pipe(ab) || pipe(ba) ||
	    (both && arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS))) {
		perror("switch_order");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		/* With --both, the fork kept the parent's tagging. */
		if (!both && arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS))
			_exit(2);
		/* Ready: every round below switches to a tagged mm. */
		if (write(ba[1], &c, 1) != 1)
			_exit(3);
		for (i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(3);
		_exit(0);
	}
	i = read(ba[0], &c, 1) == 1 ? 0 : -1;
	for (; i >= 0 && i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	check(i == rounds, "%ld of %ld rounds between a tagged and %s process on CPU 0",
	      i, rounds, both ? "another tagged" : "an untagged");
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	check(status == 0,
	      "the partner enabled tagging and answered every round (status %#x)",
	      status);
	if (both) {
		printf("# pids=%d %d\n", (int)getpid(), (int)pid);
		return tap_end();
	}

	f = fopen("/proc/switch_order", "r");
	if (!f || fscanf(f, "checks=%d changes=%d bad=%d efer_bad=%d",
			 &checks, &changes, &bad, &efer_bad) != 4)
		perror("/proc/switch_order");
	printf("# checks=%d changes=%d bad=%d efer_bad=%d\n", checks, changes,
	       bad, efer_bad);
	check(changes >= 2 * rounds,
	      "loaded_mm published %d times, %d of them with an untag mask other than the last (at least %ld)",
	      checks, changes, 2 * rounds);
	check(bad == 0,
	      "each time, the CPU's untag mask was already the new mm's (%d were not)",
	      bad);
	check(efer_bad == 0,
	      "each time, EFER.UAI was already the new mm's mode (%d were not)",
	      efer_bad);
	return tap_end();
}
