// SPDX-License-Identifier: GPL-2.0
/*
 * tagged_workload: a workload whose tagged-address events are known.
 *
 *   tagged_workload ENABLES SYSCALLS SWITCHES FAULTS GPS [arch]
 *
 * With "arch", every enable and query goes through arch_prctl() (upstream
 * LAM's interface) so that the workload runs on a kernel without the series.
 * - ENABLES processes each enable tagging once, alternating prctl and
 *   arch_prctl, and query it once with PR_GET_TAGGED_ADDR_CTRL; the last
 *   one then execs /bin/true, which resets its mode;
 * - one tagged process makes SYSCALLS uname() calls with a tagged buffer
 *   (one untag each: copy_to_user's access_ok), and an untagged process
 *   makes as many with a plain buffer (no untag at all);
 * - a tagged and an untagged process, both on CPU 0, ping-pong SWITCHES
 *   rounds through pipes: two mode switches a round;
 * - the tagged process touches FAULTS fresh pages through tagged pointers;
 * - the untagged process dereferences GPS tagged pointers (each a #GP);
 * - with TAGGED_STACK_DEREFS=N in the environment, the tagged process then
 *   loads N times through a tagged %rbp, an SS reference: LAM ignores the
 *   tag, UAI does not (#SS, SIGBUS each). It reports the SIGBUSes seen.
 *
 * Prints what it did, "key=value" a line, for the test to check against.
 * Exits non-zero if any step did not behave.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include "../lib/tagging.h"

static sigjmp_buf segv_jmp;

static void on_segv(int sig __attribute__((unused)))
{
	siglongjmp(segv_jmp, 1);
}

static int arch_only;

static int enable(int i)
{
	if ((i & 1) || arch_only)
		return arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS);
	return prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0);
}

/* Is tagging on, as the interface in use reports it? */
static int query(void)
{
	unsigned long mask = -1UL;

	if (arch_only)
		return !arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask) &&
		       mask != -1UL;
	return prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) ==
	       PR_TAGGED_ADDR_ENABLE;
}

static int wait_ok(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "tagged_workload: %s failed (status %#x)\n",
			what, status);
		return 1;
	}
	return 0;
}

static int enables(int n)
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			if (enable(i) || !query())
				_exit(1);
			if (i == n - 1)
				execl("/bin/true", "true", NULL);
			_exit(0);
		}
		bad |= wait_ok(pid, "enable");
	}
	return bad;
}

/* A load through %rbp, which makes it an SS reference. */
static void stack_deref(volatile long *p)
{
	asm volatile("push %%rbp\n\t"
		     "mov %0, %%rbp\n\t"
		     "mov (%%rbp), %%rax\n\t"
		     "pop %%rbp"
		     : : "r" (p) : "rax", "memory");
}

/* N tagged loads through %rbp; prints how many raised SIGBUS. */
static void stack_derefs(int n)
{
	static volatile long v;
	volatile int seen = 0;
	volatile int i;

	signal(SIGBUS, on_segv);
	for (i = 0; i < n; i++) {
		if (sigsetjmp(segv_jmp, 1) == 0)
			stack_deref(tag_ptr((void *)&v, 9));
		else
			seen++;
	}
	printf("stack_sigbus=%d\n", seen);
	fflush(stdout);
}

/*
 * The tagged side: SYSCALLS tagged unames, then FAULTS tagged touches,
 * then TAGGED_STACK_DEREFS loads through a tagged %rbp.
 */
static void tagged_child(int syscalls, int faults, char *region)
{
	const char *stack = getenv("TAGGED_STACK_DEREFS");
	struct utsname *u = malloc(sizeof(*u));
	int i;

	if (enable(0))
		_exit(2);
	for (i = 0; i < syscalls; i++)
		if (uname(tag_ptr(u, 1 + i % 63)))
			_exit(3);
	for (i = 0; i < faults; i++)
		*(volatile char *)tag_ptr(region + i * 4096L, 0x2a) = 1;
	if (stack)
		stack_derefs(atoi(stack));
	_exit(0);
}

static void untagged_child(int syscalls, int gps)
{
	struct utsname *u = malloc(sizeof(*u));
	static volatile long v;
	volatile int seen = 0;
	int i;

	for (i = 0; i < syscalls; i++)
		if (uname(u))
			_exit(3);
	signal(SIGSEGV, on_segv);
	for (i = 0; i < gps; i++) {
		if (sigsetjmp(segv_jmp, 1) == 0)
			(void)*(volatile long *)tag_ptr((void *)&v, 5);
		else
			seen++;
	}
	_exit(seen == gps ? 0 : 4);
}

static pid_t pingpong_pid;

static int pingpong(int rounds)
{
	struct sched_param fifo = { .sched_priority = 1 };
	int ab[2], ba[2], i, bad;
	cpu_set_t cpu0;
	char c = 0;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) || pipe(ab) || pipe(ba))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(ab[1]);
		close(ba[0]);
		if (enable(0))
			_exit(2);
		for (i = 0; i < rounds; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(3);
		/*
		 * Exit as a real-time task: the parent, woken by the last
		 * write, must not preempt this exit between exit_mm() and
		 * sched_process_exit, where a switch back to it would be lazy
		 * (it has no mm) and the scheduler's events could not tell
		 * (tests/kernel/trace-guest.sh predicts every mode switch from
		 * them).
		 */
		if (sched_setscheduler(0, SCHED_FIFO, &fifo))
			_exit(3);
		_exit(0);
	}
	pingpong_pid = pid;
	close(ab[0]);
	close(ba[1]);
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	close(ab[1]);
	close(ba[0]);
	bad = wait_ok(pid, "ping-pong");
	return bad || i != rounds;
}

int main(int argc, char **argv)
{
	int n[5], i, bad = 0;
	char *region;
	pid_t t, u;

	if (argc < 6 || argc > 7 || (argc == 7 && strcmp(argv[6], "arch"))) {
		fprintf(stderr, "usage: tagged_workload ENABLES SYSCALLS SWITCHES FAULTS GPS [arch]\n");
		return 2;
	}
	arch_only = argc == 7;
	for (i = 0; i < 5; i++)
		n[i] = atoi(argv[i + 1]);
	region = mmap(NULL, (n[3] + 1) * 4096L, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 1;

	bad |= enables(n[0]);
	fflush(stdout);
	t = fork();
	if (t == 0)
		tagged_child(n[1], n[3], region);
	bad |= wait_ok(t, "tagged syscalls and faults");
	u = fork();
	if (u == 0)
		untagged_child(n[1], n[4]);
	bad |= wait_ok(u, "untagged syscalls and #GPs");
	bad |= pingpong(n[2]);

	printf("tagged_pid=%d\nuntagged_pid=%d\npingpong_pid=%d\n", t, u,
	       pingpong_pid);
	printf("region_start=%lu\nregion_end=%lu\n", (unsigned long)region,
	       (unsigned long)region + n[3] * 4096UL);
	return bad;
}
