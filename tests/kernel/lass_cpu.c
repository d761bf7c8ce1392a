// SPDX-License-Identifier: GPL-2.0
/*
 * lass_cpu enable: ask for LAM (ARCH_ENABLE_TAGGED_ADDR, six bits) and
 *   print "enable: 0" or "enable: ERRNO" (EPERM, ...).
 * lass_cpu hold: ask for LAM as above, then read CPU numbers from stdin,
 *   one line; once it ends, dereference a tagged pointer on each of those
 *   CPUs in turn and print "cpuN: ok", "cpuN: signal S" or "cpuN: cannot
 *   run there (ERRNO)".
 * For tests/kernel/lass-cpu-guest.sh: a process that holds LAM while a
 * CPU without LASS is brought online beside it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/tagging.h"

static int enable(void)
{
	int err = arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS) ? errno : 0;

	printf("enable: %s\n", err ? strerrorname_np(err) : "0");
	fflush(stdout);
	return err;
}

static void on_cpu(int cpu)
{
	static volatile uint64_t v = 41;
	cpu_set_t set;
	int sig;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("cpu%d: cannot run there (%s)\n", cpu,
		       strerrorname_np(errno));
		return;
	}
	sig = deref_in_child(tag_ptr((void *)&v, 0x2a), &v);
	if (sig)
		printf("cpu%d: signal %d\n", cpu, sig);
	else
		printf("cpu%d: ok\n", cpu);
}

int main(int argc, char **argv)
{
	char line[256], *p, *end;
	long cpu;

	if (argc == 2 && !strcmp(argv[1], "enable"))
		return enable() ? 1 : 0;
	if (argc != 2 || strcmp(argv[1], "hold")) {
		fprintf(stderr, "usage: %s enable|hold\n", argv[0]);
		return 2;
	}
	if (enable())
		return 1;
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (p = line; ; p = end) {
		cpu = strtol(p, &end, 10);
		if (end == p)
			break;
		on_cpu(cpu);
	}
	return 0;
}
