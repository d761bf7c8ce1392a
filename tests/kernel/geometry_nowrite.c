// SPDX-License-Identifier: GPL-2.0
/*
 * geometry_nowrite: PR_SET_TAGGED_ADDR_CTRL proves its two result pointers
 * (int *nr_bits, int *offset) writable before it changes anything, and a
 * call that fails must leave the caller's memory as it was. A probe that
 * reads a value and stores it back is not that: a store another thread
 * makes between the two is undone, by a call that may then fail. So the
 * kernel must not write *nr_bits at all in a call that fails.
 *
 * A hardware write watchpoint on *nr_bits (perf, PERF_TYPE_BREAKPOINT,
 * kernel writes included) counts the kernel's writes to it. It must see
 * the write of PR_GET_TAGGED_ADDR_CTRL, which reports into *nr_bits, and
 * of a successful enable (in a child), or the test could not fail; and
 * none in an enable that fails with EFAULT because offset is unmapped or
 * read-only. Run in the guest where tagging is offered (--cpu lam, or
 * --cpu uai with mitigations=off). Prints TAP; exits 1 on a failure.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tap-check.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_GET_TAGGED_ADDR_CTRL	56
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif

static volatile int word;
static int watch = -1;

/* How many writes the watchpoint on word has counted so far. */
static long long writes(void)
{
	long long n;

	if (read(watch, &n, sizeof(n)) != sizeof(n))
		return -1;
	return n;
}

/* PR_SET_TAGGED_ADDR_CTRL enabling, with &word as nr_bits: errno or 0. */
static int set_ctrl(int *offset)
{
	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE,
		  (unsigned long)&word, (unsigned long)offset, 0))
		return errno;
	return 0;
}

/* A failing enable with this offset: EFAULT, no write to *nr_bits. */
static void failing_enable(int *offset, const char *what)
{
	long long before, seen;
	int err;

	word = 6;
	before = writes();
	err = set_ctrl(offset);
	check(err == EFAULT, "an enable with %s fails with EFAULT (%s)",
	      what, strerror(err));
	seen = writes() - before;
	check(seen == 0 && word == 6,
	      "it wrote nothing to *nr_bits (%lld kernel writes, value %d)",
	      seen, word);
	check(prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) == 0,
	      "and left the process untagged");
}

int main(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(attr),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uintptr_t)&word,
		.bp_len = HW_BREAKPOINT_LEN_4,
		.exclude_hv = 1,
		.inherit = 1,	/* a child's count joins ours when it exits */
	};
	long long before, seen;
	int *gone, *ro, ret, status, off = -1;
	pid_t pid;

	watch = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	check(watch >= 0, "a write watchpoint on *nr_bits, kernel writes included (%s)",
	      watch >= 0 ? "perf_event_open" : strerror(errno));
	if (watch < 0)
		return tap_end();

	word = 0;
	before = writes();
	ret = prctl(PR_GET_TAGGED_ADDR_CTRL, (unsigned long)&word, 0, 0, 0);
	seen = writes() - before;
	check(ret == 0 && word > 0 && seen > 0,
	      "it sees PR_GET_TAGGED_ADDR_CTRL write %d bits into *nr_bits (%lld kernel writes)",
	      word, seen);

	word = 6;
	fflush(stdout);
	before = writes();
	pid = fork();
	if (pid == 0)
		_exit(set_ctrl(&off) ? 1 : off > 0 ? 0 : 2);
	check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0 && writes() > before,
	      "and a successful enable writes the grant (in a child; tagging offered)");

	gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED || ro == MAP_FAILED || munmap(gone, 4096)) {
		check(0, "mmap() for the bad offset pointers");
		return tap_end();
	}
	failing_enable(gone, "offset unmapped");
	failing_enable(ro, "offset read-only");
	return tap_end();
}
