// SPDX-License-Identifier: GPL-2.0
/*
 * uaccess_bench: system calls whose user accesses take a memory operand
 * the compiler chooses (unsafe_get_user(), unsafe_put_user(), the futex
 * operations, the FPU signal frame), which the kernel untags on UAI, and
 * one that copies with rep movs only (uname(), the control).
 *
 *   uaccess_bench [CALLS REPEATS [tagged|untagged]]
 *
 *   sig     raise(SIGUSR1) with an empty handler: the signal frame written
 *           (unsafe_put_user(), fxsave or xsave) and read back by
 *           rt_sigreturn() (unsafe_get_user())
 *   dents   lseek() to 0 and getdents64() of a directory of 32 entries
 *           (filldir64(): unsafe_put_user() and unsafe_copy_to_user()
 *           for each)
 *   futex   FUTEX_WAKE_OP with nobody waiting: the atomic add on the
 *           second word (arch_futex_atomic_op_inuser())
 *   stat    fstatat() of a file by a 30-byte path (strncpy_from_user())
 *   uname   uname() (copy_to_user(): rep movs, no untag)
 *
 * tagged (the default) enables tagging and passes every buffer through a
 * tagged pointer (the signal frame is on the untagged stack: a tagged
 * stack pointer faults in user mode on UAI); untagged enables nothing.
 * Prints the mean over REPEATS runs of each, in ns per call, as
 * "sig_ns=... dents_ns=... futex_ns=... stat_ns=... uname_ns=...". Under
 * tests/vm/run --icount one ns is one guest instruction.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../lib/tagging.h"

#define DIR_PATH	"/tmp/uaccess_bench.dir"
#define FILE_PATH	DIR_PATH "/file-00000000"

static int tagged = 1;
static unsigned long tag_n;

/* A pointer with the next tag (1-63), or the pointer itself untagged. */
static void *tp(const void *p)
{
	if (!tagged)
		return (void *)p;
	tag_n = tag_n % 63 + 1;
	return tag_ptr(p, tag_n);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static double sig_loop(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		raise(SIGUSR1);
	return (now_ns() - t0) / n;
}

static double dents_loop(long n)
{
	static char buf[8192];
	int fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	double t0;
	long i;

	if (fd < 0)
		exit(1);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		lseek(fd, 0, SEEK_SET);
		if (syscall(SYS_getdents64, fd, tp(buf), sizeof(buf)) <= 0)
			exit(1);
	}
	t0 = (now_ns() - t0) / n;
	close(fd);
	return t0;
}

static double futex_loop(long n)
{
	static uint32_t w1, w2;
	int op = FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0);
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		if (syscall(SYS_futex, &w1, FUTEX_WAKE_OP_PRIVATE, 1, 1,
			    tp(&w2), op) < 0)
			exit(1);
	return (now_ns() - t0) / n;
}

static double stat_loop(long n)
{
	static char path[] = FILE_PATH;
	struct stat st;
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		if (fstatat(AT_FDCWD, tp(path), tp(&st), 0))
			exit(1);
	return (now_ns() - t0) / n;
}

static double uname_loop(long n)
{
	static struct utsname u;
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		if (uname(tp(&u)))
			exit(1);
	return (now_ns() - t0) / n;
}

static void make_dir(void)
{
	char name[64];
	int i, fd;

	mkdir(DIR_PATH, 0755);
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), DIR_PATH "/file-%08d", i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			exit(1);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "sig", "dents", "futex", "stat", "uname" };
	double (*const loops[])(long) = { sig_loop, dents_loop, futex_loop,
					   stat_loop, uname_loop };
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int reps = argc > 2 ? atoi(argv[2]) : 3, r, k;
	double sum[5] = { 0 };

	if (argc > 3 && strcmp(argv[3], "tagged")) {
		if (strcmp(argv[3], "untagged")) {
			fprintf(stderr, "uaccess_bench: mode is tagged or untagged, not '%s'\n",
				argv[3]);
			return 2;
		}
		tagged = 0;
	}
	if (n < 1 || reps < 1) {
		fprintf(stderr, "uaccess_bench: CALLS and REPEATS must be at least 1\n");
		return 2;
	}
	if (tagged && prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0)) {
		perror("uaccess_bench: PR_SET_TAGGED_ADDR_CTRL");
		return 1;
	}
	if (signal(SIGUSR1, on_usr1) == SIG_ERR)
		return 1;
	make_dir();
	for (r = 0; r < reps; r++)
		for (k = 0; k < 5; k++)
			sum[k] += loops[k](n);
	for (k = 0; k < 5; k++)
		printf("%s%s_ns=%.1f", k ? " " : "", names[k], sum[k] / reps);
	printf("\n");
	return 0;
}
