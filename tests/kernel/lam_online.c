// SPDX-License-Identifier: GPL-2.0
/*
 * lam_online lass|nolass [ROUNDS]: take CPU 1 offline and online ROUNDS
 * times (20) while this process runs with LAM, a child of it (LAM too)
 * dereferences tagged pointers on any CPU and another reads sysfs (which
 * now and then makes the hotplug thread wait while it creates CPU 1's
 * cacheinfo directories, the last online state before the dynamic ones:
 * on a PREEMPT_NONE kernel the only way other threads get to run on a CPU
 * coming up before those states), with the lam_online test module
 * (tests/kernel/modules/lam_online.c) adopting this mm on CPU 1 each time
 * CPU 1 comes online, before the CPU is active. Then what the module saw:
 * one adoption a round, each with LAM in CR3, and CR4.LASS set in each
 * ("lass": the kernel sets LASS before a CPU runs any task) or clear in
 * each ("nolass": the control, a CPU without LASS, mitigations=off, where
 * the same module must see LAM without LASS every time).
 * Needs root, 2 CPUs and the module loaded. Prints TAP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../lib/tagging.h"
#include "../lib/tap-check.h"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	int want_lass = argc > 1 && !strcmp(argv[1], "lass");
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	int runs = -1, lam = -1, nolass = -1, i, bad = 0;
	static volatile unsigned long word = 1;
	pid_t child, sysfs;
	FILE *f;

	if (argc < 2 || (!want_lass && strcmp(argv[1], "nolass"))) {
		fprintf(stderr, "usage: lam_online lass|nolass [ROUNDS]\n");
		return 2;
	}
	check(syscall(SYS_arch_prctl, ARCH_ENABLE_TAGGED_ADDR, TAG_BITS) == 0,
	      "LAM enabled for this process");

	/* A LAM process that keeps running, on whichever CPU is up. */
	child = fork();
	if (child == 0) {
		volatile unsigned long *tagged = (volatile unsigned long *)
			((unsigned long)&word | (0x2aULL << TAG_SHIFT));

		for (;;)
			word = *tagged + 1;
	}
	check(child > 0, "a tagged child runs beside the hotplug loop");
	/*
	 * sysfs readers beside the loop: CPU 1's cacheinfo directories, made
	 * just before the dynamic online states, then wait for them now and
	 * then, and the hotplug thread sleeps in the window a CPU-setup
	 * enable closes.
	 */
	sysfs = fork();
	if (sysfs == 0) {
		for (;;) {
			DIR *d = opendir("/sys/devices/system/cpu/cpu0/cache/index0");

			while (d && readdir(d))
				;
			if (d)
				closedir(d);
		}
	}

	check(write_str("/proc/lam_online", "1") == 0,
	      "the module adopts this mm on each CPU that comes online");
	for (i = 0; i < rounds; i++) {
		if (write_str(online, "0") || write_str(online, "1"))
			bad++;
	}
	check(bad == 0, "CPU 1 offline and online %d times (%d failed)",
	      rounds, bad);
	write_str("/proc/lam_online", "0");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (sysfs > 0) {
		kill(sysfs, SIGKILL);
		waitpid(sysfs, NULL, 0);
	}

	f = fopen("/proc/lam_online", "r");
	if (!f || fscanf(f, "runs=%d lam=%d nolass=%d", &runs, &lam,
			 &nolass) != 3)
		runs = -1;
	if (f)
		fclose(f);
	printf("# runs=%d lam=%d nolass=%d\n", runs, lam, nolass);
	check(runs == rounds,
	      "one adoption on CPU 1 each time it came online (%d of %d)",
	      runs, rounds);
	check(lam == runs, "each with LAM in CR3 (%d of %d)", lam, runs);
	if (want_lass)
		check(nolass == 0,
		      "none on a CPU without CR4.LASS (%d without)", nolass);
	else
		check(nolass == runs,
		      "control: all on a CPU without CR4.LASS (%d of %d)",
		      nolass, runs);
	return tap_end();
}
