// SPDX-License-Identifier: GPL-2.0
/*
 * storm COUNT [RATE [PID...]]: COUNT uname() calls on a tagged pointer,
 * each one tagged_addr_untag event, at RATE calls a second (0 or absent: as
 * fast as possible). Enables tagging first (prctl, else arch_prctl). Prints
 * "calls=N seconds=S rate=R ns_per_call=X" for the benchmarks.
 * With PIDs, the time runs on until every thread of each PID has been seen
 * asleep twice in a row 0.1 ms apart: a tracer that consumes records has
 * then printed all the calls made, and their cost is in the figures.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <time.h>

#include "../lib/tagging.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether any thread of pid is running or runnable (or pid is gone: no). */
static int busy(const char *pid)
{
	char path[320], buf[512], *state;
	struct dirent *d;
	int ret = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	dir = opendir(path);
	while (dir && !ret && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f)) {
			state = strrchr(buf, ')');
			ret = state && state[1] && state[2] == 'R';
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return ret;
}

/* Until every thread of pids[0..n) has been asleep twice 0.1 ms apart. */
static void wait_drained(char **pids, int n)
{
	const struct timespec ms = { 0, 100000 };
	int idle = 0, i;

	while (idle < 2) {
		nanosleep(&ms, NULL);
		for (i = 0; i < n && !busy(pids[i]); i++)
			;
		idle = i == n ? idle + 1 : 0;
	}
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 0, i;
	double rate = argc > 2 ? atof(argv[2]) : 0, start, secs;
	struct utsname *u = malloc(sizeof(*u)), *t;

	if (count <= 0 || rate < 0 || !u) {
		fprintf(stderr, "usage: storm COUNT [RATE]\n");
		return 2;
	}
	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0) &&
	    arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		perror("storm: cannot enable tagging");
		return 1;
	}
	t = tag_ptr(u, 0x15);
	start = now();
	for (i = 0; i < count; i++) {
		/*
		 * Paced: wait until call i is due, sleeping while more than
		 * 2 ms ahead so a tracer on the same CPU can run.
		 */
		if (rate && !(i & 15)) {
			double ahead;

			while ((ahead = i / rate - (now() - start)) > 0) {
				struct timespec ts = { 0, (ahead - 1e-3) * 1e9 };

				if (ahead > 2e-3)
					nanosleep(&ts, NULL);
			}
		}
		if (uname(t)) {
			perror("storm: uname with a tagged pointer");
			return 1;
		}
	}
	if (argc > 3)
		wait_drained(argv + 3, argc - 3);
	secs = now() - start;
	printf("calls=%ld seconds=%.3f rate=%.0f ns_per_call=%.0f\n", count,
	       secs, count / secs, secs * 1e9 / count);
	return 0;
}
